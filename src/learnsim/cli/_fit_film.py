"""``learnsim fit --method film``: FILM from labelled documents or duplicate pairs.

Against the baseline (issue 13, :mod:`learnsim.baseline`), the input cosine:

- from labelled documents, FILM holds out whole clusters itself (``baseline_holdout``, from
  --baseline-holdout) and chooses the weight of the input cosine in its similarity there;
- from pairs, --validation-fraction of the pairs are held out: the duplicate rule
  (:func:`learnsim.scoring.choose_matcher`: the mixed-cosine threshold, the pair classifier
  or the pairwise kNN rule, per --matcher) is chosen on them and measured per pair against a
  threshold on the input cosine, and the search weight (:class:`learnsim.scoring.SearchRule`)
  per held-out duplicate query against the input cosine (recall@1). Both reports are printed,
  in --json (``match_baseline_gain``, ``baseline_gain``) and saved (parts "match_rule" and
  "search"). --baseline-holdout none keeps the rules chosen on the held-out pairs without the
  comparison.
"""
from __future__ import annotations

import time

import numpy as np

from .._progress import stage
from ._common import _note, UsageError
from ._fit_text import (baseline_holdout, print_baseline, print_fitted_on, read_supervision, save_and_summarise,
                        vectorize)

# FILM's n_components when --dimensions is not given (the paper's d), capped by the data.
_DEFAULT_FILM_DIMENSIONS = 100
# FILM on pairs: the share of the pairs held out to choose the matching rule (as the FILM
# reproduction) and the neighbours among which each anchor's hard negative is drawn.
_DEFAULT_PAIRS_VALIDATION_FRACTION = 0.2
_FILM_NEIGHBOURS = 10


#: --matcher: the duplicate rules ``learnsim fit --method film --pairs`` may choose among
#: (learnsim.scoring.choose_matcher); "auto" tries them all.
MATCHER_CHOICES = ("auto", "threshold", "classifier", "knn")
MATCHER_HELP = ("film with --pairs: the duplicate rule 'learnsim match' uses: a threshold on FILM's cosine mixed "
                "with the input cosine (threshold), the learned pair classifier (classifier), the paper's "
                "pairwise kNN rule (knn), or whichever is most accurate on the held-out pairs (auto, default); "
                "each is measured against a threshold on the input cosine, which it falls back to when it "
                "does not beat it")


def fit_film(args, model_path, summary):
    """Fit, save and report FILM (``learnsim fit --method film``)."""
    texts, labels, pairs = read_supervision(args, summary)
    args.weighting = args.weighting or "tfidf"
    vectorizer, X, vec_seconds = vectorize(args, texts, args.weighting, summary)
    holdout = baseline_holdout(args)
    choice = getattr(args, "matcher", None)
    if pairs is None and choice not in (None, "auto"):
        raise UsageError("--matcher chooses the duplicate rule of a FILM fitted on --pairs; it does not apply "
                         "to --input")
    held = None
    if pairs is not None:
        all_pairs = pairs
        pairs, held = _split_validation_pairs(pairs, args)
    # with pairs, the held-out pairs judge the duplicate and search rules against the input
    # cosine (below); FILM itself is fitted on all the training pairs
    metric, y = _film_with_supervision(args, X, labels, pairs, None if held is not None else holdout)
    start = time.perf_counter()
    with stage("FILM: learning the metric"):
        metric.fit(X, y)
    parts = {"vectorizer": vectorizer, "metric": metric}
    if held is not None:
        from ..scoring import MATCHERS, choose_matcher

        candidates = MATCHERS if choice in (None, "auto") else (choice,)
        with stage("FILM: choosing the duplicate rule on held-out pairs"):
            matcher, rule = choose_matcher(metric, X, pairs, held, texts=texts, vectorizer=vectorizer,
                                           candidates=candidates, check_baseline=holdout is not None,
                                           random_state=args.seed)
        with stage("FILM: choosing the search rule on held-out duplicates"):
            search = _validated_search(metric, X, held, all_pairs, args.seed, holdout is not None)
        parts.update(matcher=matcher, match_rule=rule, search=search)
        # input_weight: the mixed-cosine threshold rule's weight (chosen on all the held-out pairs),
        # whichever rule decides; threshold: the deciding rule's, when it is a threshold
        summary.update(validation_pairs=held.n_pairs, matcher=rule.matcher, matcher_accuracies=rule.accuracies,
                       validation_accuracy=rule.accuracies.get(rule.matcher), input_weight=rule.mixed_input_weight)
        if hasattr(matcher, "input_weight_"):
            summary.update(threshold=matcher.threshold_)
        summary.update(search_input_weight=search.input_weight,
                       search_validation_recall_at_1=float(np.max(search.weight_scores)),
                       baseline_gain=_report(search.baseline_gain), match_baseline_gain=_report(rule.baseline_gain))
    else:
        summary.update(input_weight=metric.input_weight_, baseline_gain=_report(metric.baseline_gain_))
    metric_seconds = time.perf_counter() - start
    summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                   triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)

    if save_and_summarise(parts, model_path, summary, args, vec_seconds, metric_seconds):
        return 0
    print_fitted_on(summary, args, vectorizer, pairs)
    print(f"Metric: FILM, {summary['n_components']} dimensions, svd_rank={summary['svd_rank']}, "
          f"{summary['triplets']} triplets, {summary['n_iter']} iterations "
          f"({'converged' if summary['converged'] else 'not converged'}).")
    if held is None:
        w = metric.input_weight_
        print(f"Similarity: {w:g} x input cosine + {1 - w:g} x cosine in FILM's learned space"
              f"{' (weight chosen on held-out clusters)' if metric.baseline_gain_ is not None else ''}.")
        print_baseline(metric.baseline_gain_)
    else:
        _print_pair_rules(summary, held, matcher, rule, search)
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _report(report):
    return None if report is None else report.to_dict()


_RULE_WORDS = {"cosine": "a threshold on the input cosine", "threshold": "a threshold on the mixed cosine",
               "knn": "the pairwise kNN rule in FILM's space", "classifier": "the pair classifier",
               "classifier+film": "the pair classifier with FILM's features"}


def _print_pair_rules(summary, held, matcher, rule, search):
    accuracies = ", ".join(f"{name} {acc:.3f}" for name, acc in rule.accuracies.items())
    print(f"Duplicate rule chosen on {held.n_pairs} held-out pairs: {_RULE_WORDS[rule.matcher]}"
          + (f" (held-out accuracy: {accuracies})" if accuracies else "") + "; 'learnsim match' uses it.")
    if hasattr(matcher, "input_weight_") and matcher.input_weight_ is not None:
        w = matcher.input_weight_
        print(f"  similarity = {w:g} x input cosine + {1 - w:g} x learned cosine, duplicate from "
              f"{matcher.threshold_:.4f}.")
    if rule.baseline_gain is not None:
        print(f"Against the baseline (duplicate rule): {rule.baseline_gain.summary()}.")
    print(f"Search rule chosen on the held-out duplicates: {search.input_weight:g} x input cosine + "
          f"{1 - search.input_weight:g} x learned cosine (validation recall@1 "
          f"{summary['search_validation_recall_at_1']:.3f}); 'learnsim search' uses it.")
    print_baseline(search.baseline_gain)


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


def _validated_search(metric, X, held, all_pairs, seed, check_baseline):
    """The search weight of FILM's input-cosine mix, chosen on the held-out duplicates: each of
    their texts searches the whole collection; its duplicates are the texts that chains of
    duplicate pairs (all of them) join to it."""
    from ..supervision import pairs_to_clusters
    from ..scoring import SearchRule

    components = np.asarray(pairs_to_clusters(all_pairs, X.shape[0]).labels)
    queries = np.unique(held.indices[held.labels].ravel())
    queries = queries[components[queries] >= 0]
    return SearchRule.select(metric, X, queries, components, random_state=seed, check_baseline=check_baseline)


def _film_with_supervision(args, X, labels, pairs, holdout):
    """The FILM to fit and what to fit it on: the cluster labels (FILM draws its triplets from
    them) or triplets made of the duplicate pairs. ``holdout``: FILM's own ``baseline_holdout``."""
    from .._progress import _default_enabled
    from ..film import FILM

    y = labels if pairs is None else _film_triplets(pairs, X, args.seed)
    most = min(X.shape)
    d = args.n_components
    if d is None:
        d = min(_DEFAULT_FILM_DIMENSIONS, most)
        if d < _DEFAULT_FILM_DIMENSIONS:
            # a small collection: FILM learns at most the numerical rank of X (repeated or
            # one-word texts make it smaller than min(documents, features)); one dimension is small,
            # so its singular values are cheap
            from ..film import _RANK_TOL

            dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
            sigma = np.linalg.svd(dense, compute_uv=False)
            d = max(1, min(d, int(np.sum(sigma > _RANK_TOL * max(float(sigma[0]), np.finfo(float).tiny)))))
            _note(f"using {d} dimensions: FILM learns at most the rank of the texts' vectors (min(documents, "
                  f"features) = {most})")
    settings = {"n_components": d, "svd_rank": args.svd_rank}
    if args.max_iter is not None:
        settings["max_iter"] = args.max_iter
    metric = FILM(**settings, baseline_holdout=holdout, random_state=args.seed, verbose=_default_enabled())
    return metric, y
