"""``learnsim fit --method film``: FILM from labelled documents or duplicate pairs; with pairs,
the matching and search rules are chosen on held-out pairs."""
from __future__ import annotations

import time

import numpy as np

from .._progress import stage
from ._common import _note, _print_json, _save_model, UsageError
from ._fit_text import print_fitted_on, read_and_vectorize

# FILM's n_components when --dimensions is not given (the paper's d), capped by the data.
_DEFAULT_FILM_DIMENSIONS = 100
# FILM on pairs: the share of the pairs held out to choose the matching rule (as the FILM
# reproduction) and the neighbours among which each anchor's hard negative is drawn.
_DEFAULT_PAIRS_VALIDATION_FRACTION = 0.2
_FILM_NEIGHBOURS = 10


def fit_film(args, model_path, summary):
    """Fit, save and report FILM (``learnsim fit --method film``)."""
    vectorizer, X, labels, pairs, vec_seconds = read_and_vectorize(args, summary)
    held = None
    if pairs is not None:
        all_pairs = pairs
        pairs, held = _split_validation_pairs(pairs, args)
    metric, y = _film_with_supervision(args, X, labels, pairs)
    start = time.perf_counter()
    with stage("FILM: learning the metric"):
        metric.fit(X, y)
    parts = {"vectorizer": vectorizer, "metric": metric}
    if held is not None:
        with stage("FILM: choosing the duplicate and search rules on held-out pairs"):
            parts["matcher"] = matcher = _validated_matcher(metric, X, held)
            parts["search"] = search = _validated_search(metric, X, held, all_pairs)
        summary.update(validation_pairs=held.n_pairs, input_weight=matcher.input_weight_,
                       threshold=matcher.threshold_, validation_accuracy=matcher.validation_accuracy_)
        summary.update(search_input_weight=search.input_weight,
                       search_validation_recall_at_1=float(search.weight_scores.max()))
    metric_seconds = time.perf_counter() - start
    summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                   triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)

    _save_model(parts, model_path)
    summary.update(vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    print_fitted_on(summary, args, vectorizer, pairs)
    print(f"Metric: FILM, {summary['n_components']} dimensions, svd_rank={summary['svd_rank']}, "
          f"{summary['triplets']} triplets, {summary['n_iter']} iterations "
          f"({'converged' if summary['converged'] else 'not converged'}).")
    if held is not None:
        w = summary["input_weight"]
        print(f"Matching rule chosen on {held.n_pairs} held-out pairs: similarity = {w:g} x input cosine + "
              f"{1 - w:g} x learned cosine, duplicate from {summary['threshold']:.4f} (validation accuracy "
              f"{summary['validation_accuracy']:.3f}); 'learnsim match' uses it.")
        print(f"Search rule chosen on the held-out duplicates: {summary['search_input_weight']:g} x input cosine + "
              f"{1 - summary['search_input_weight']:g} x learned cosine (validation recall@1 "
              f"{summary['search_validation_recall_at_1']:.3f}); 'learnsim search' uses it.")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _film_triplets(pairs, X, seed):
    """Triplets from duplicate pairs, without the texts that have no vocabulary term (FILM
    L2-normalises every row it learns from). Each duplicate direction gets the anchor's labelled
    non-duplicate partner, a random negative and a hard one: a non-duplicate among the anchor's
    10 nearest texts by the input cosine (as in the FILM reproduction)."""
    from ..search import top_k
    from ..supervision import duplicate_pairs_to_triplets
    from ..text import find_empty_rows

    n_neighbours = min(_FILM_NEIGHBOURS, X.shape[0] - 1)
    with stage("FILM: finding each text's nearest texts (hard negatives)"):
        neighbours = top_k(X, X, n_neighbours, metric="cosine", exclude_self=True, return_scores=False) \
            if n_neighbours >= 1 else None
    T = duplicate_pairs_to_triplets(pairs, n_items=X.shape[0], random_state=seed, neighbors=neighbours,
                                    n_hard_negatives=1 if neighbours is not None else 0).indices
    empty = find_empty_rows(X)
    if empty.size:
        unusable = np.isin(T, empty).any(axis=1)
        if unusable.any():
            _note(f"{int(unusable.sum())} of {len(T)} triplets use one of the {empty.size} text(s) without "
                  "a vocabulary term; they are left out")
            T = T[~unusable]
    if len(T) == 0:
        raise UsageError("no usable triplet: every triplet uses a text without a vocabulary term")
    return T


def _split_validation_pairs(pairs, args):
    """(training pairs, held-out pairs): the held-out ones choose FILM's matching rule."""
    from ..supervision import split_pairs

    fraction = args.validation_fraction or _DEFAULT_PAIRS_VALIDATION_FRACTION
    if not pairs.labels.any():
        raise UsageError("no duplicate pair (label 1): FILM learns from duplicates")
    if pairs.n_pairs < 4:
        raise UsageError(f"{pairs.n_pairs} pair(s) are too few: FILM learns from some and holds out "
                         f"{fraction:g} of them to choose its duplicate threshold")
    train, held = split_pairs(pairs, held_out=fraction, random_state=args.seed)
    if held.labels.all() or not held.labels.any():
        raise UsageError(f"the {held.n_pairs} held-out pair(s) (--validation-fraction {fraction:g}) are all "
                         f"{'duplicates' if held.labels.all() else 'non-duplicates'}; the duplicate threshold "
                         "needs both kinds: give more pairs or a larger --validation-fraction")
    if not train.labels.any():
        raise UsageError("no duplicate pair is left to learn from after holding out the validation pairs")
    return train, held


def _validated_matcher(metric, X, held):
    """ThresholdMatcher(input_weight="auto") fitted on the held-out pairs: the mixing weight of
    the input cosine, the duplicate threshold and the Platt calibration. It keeps only the rows
    of those pairs as its collection (the model file stays small)."""
    from ..matching import ThresholdMatcher
    from ..supervision import Pairs

    rows, inverse = np.unique(held.indices, return_inverse=True)
    local = Pairs(inverse.reshape(held.indices.shape), labels=held.labels)
    return ThresholdMatcher(metric, input_weight="auto").fit(X[rows], local)


def _validated_search(metric, X, held, all_pairs):
    """The search weight of FILM's input-cosine mix, chosen on the held-out duplicates: each of
    their texts searches the whole collection; its duplicates are the texts that chains of
    duplicate pairs (all of them) join to it."""
    from ..supervision import pairs_to_clusters
    from ..scoring import SearchRule

    components = np.asarray(pairs_to_clusters(all_pairs, X.shape[0]).labels)
    queries = np.unique(held.indices[held.labels].ravel())
    queries = queries[components[queries] >= 0]
    return SearchRule.select(metric, X, queries, components)


def _film_with_supervision(args, X, labels, pairs):
    """The FILM to fit and what to fit it on: the cluster labels (FILM draws its triplets from
    them) or triplets made of the duplicate pairs."""
    from .._progress import _default_enabled
    from ..film import FILM

    y = labels if pairs is None else _film_triplets(pairs, X, args.seed)
    most = min(X.shape)
    d = args.n_components
    if d is None:
        d = min(_DEFAULT_FILM_DIMENSIONS, most)
        if d < _DEFAULT_FILM_DIMENSIONS:
            _note(f"using {d} dimensions: FILM learns at most min(documents, features) = {most}")
    settings = {"n_components": d, "svd_rank": args.svd_rank}
    if args.max_iter is not None:
        settings["max_iter"] = args.max_iter
    metric = FILM(**settings, random_state=args.seed, verbose=_default_enabled())
    return metric, y
