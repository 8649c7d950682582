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

import math

from .._defaults import MATCHER_CHOICES      # (learnsim._fit_common's import brings numpy)
from ._common import _note, UsageError
from ._fit_text import (ended_as_baseline, fit_options, print_baseline, print_fitted_on, print_held_out,
                        read_corpus_option, read_supervision, save_and_summarise)

__all__ = ["MATCHER_CHOICES", "MATCHER_HELP", "fit_film"]

#: --matcher (learnsim.fitting.MATCHER_CHOICES: the duplicate rules ``learnsim fit --method film
#: --pairs`` may choose among, learnsim.matching.choose_matcher; "auto" chooses among the rules that
#: decide a pair by its own two texts: the kNN rule decides by the other texts given beside them).
MATCHER_HELP = ("film with --pairs: the duplicate rule 'learnsim match' uses: a threshold on FILM's cosine mixed "
                "with the input cosine (threshold), the learned pair classifier (classifier), the paper's "
                "pairwise kNN rule (knn: mutual nearest neighbours among the texts given together, so two "
                "texts given alone always match; only when named), or the most accurate on the held-out pairs "
                "of the rules that decide a pair by its two texts (auto, default); each is measured against a "
                "threshold on the input cosine, which it falls back to when it does not beat it")
# how the library's messages name the options here
_FLAGS = {"validation_fraction": "--validation-fraction", "matcher": "--matcher"}


def _cli_note(message, info=False):
    _note(message)


def fit_film(args, model_path, summary):
    """Fit (learnsim.fitting.fit_film), save and report FILM (``learnsim fit --method film``)."""
    texts, labels, pairs = read_supervision(args, summary)
    if pairs is not None and pairs.is_graded:
        return _fit_graded(args, model_path, summary, texts, pairs)
    if pairs is None and getattr(args, "matcher", None) not in (None, "auto"):
        raise UsageError("--matcher chooses the duplicate rule of a FILM fitted on --pairs; it does not apply "
                         "to --input")
    texts, documents = read_corpus_option(args, texts, summary)
    # learnsim.fitting imported here, not by the parser: a search need not pay for it
    from ..fitting import fit_film as _fit

    result = _fit(fit_options(args), texts, labels, pairs, summary, note=_cli_note, flags=_FLAGS,
                  documents=documents)
    details = result.details
    vec_seconds, metric_seconds = details.vec_seconds, details.metric_seconds

    if save_and_summarise(result, model_path, args):
        return 0
    if pairs is None and ended_as_baseline(summary):
        # FILM's metric, similarity and own check describe a model not saved
        print_fitted_on(summary, args, None, None, features=False, texts=texts)
        print_baseline_model(summary, result.pipeline, "FILM")
    elif pairs is None:
        print_fitted_on(summary, args, getattr(result.pipeline, "vectorizer", None), details.pairs, texts=texts)
        from ..baseline import BaselineGain

        _print_film(summary)
        w = summary["input_weight"]
        report = summary.get("baseline_gain")
        print(f"Similarity: {w:g} x input cosine + {1 - w:g} x cosine in FILM's learned space"
              f"{' (weight chosen on held-out clusters)' if report is not None and report.get('status') != 'unchecked' else ''}"
              ".")
        print_baseline(None if report is None else BaselineGain.from_dict(report))
        _print_search_check(summary, result.pipeline, "FILM")
    else:
        print_fitted_on(summary, args, getattr(result.pipeline, "vectorizer", None), details.pairs, texts=texts)
        _print_search(summary, result.pipeline, details)
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _why_baseline(summary):
    # judgements too few to hold any query out end as the baseline unchecked (baseline_of_judgements)
    reason = (summary.get("search_baseline_gain") or {}).get("reason") or ""
    if summary.get("held_out"):
        if "too few to tell" in reason:
            # 4-5 clusters: held out, but in too few groups for any gain to count
            return ("was checked on too few held-out groups to tell a gain over it from chance, and it is the "
                    "strongest baseline on the held-out queries")
        return "did not beat it on the held-out queries"
    # the cause (2-3 clusters, or judgements), without the report's account of the judged queries
    cause = reason.split(" (the judged")[0]
    return ("could not be checked on so few judged queries" + (f" ({cause})" if cause else "")
            + ", and it is the strongest baseline on them")


def print_baseline_model(summary, pipeline, what):
    """The method line of a model that ended as the strongest baseline: which baseline it is and
    why, then the search check that chose it."""
    print(f"The model is {pipeline.scoring}, the strongest baseline: what {what} learned " + _why_baseline(summary)
          + "; 'learnsim search' and 'learnsim index build' use it.")
    print_held_out(summary)
    _print_search_check(summary, pipeline, what, model_line=False)


def _print_search_check(summary, pipeline, what, model_line=True):
    """The check of a model fitted on clusters as search is used (held-out clusters, the
    strongest baseline), and what the model is when it fell back."""
    from ..baseline import BaselineGain

    search = summary.get("search_baseline_gain")
    if search is None:
        return
    print(f"Search against the strongest baseline: {BaselineGain.from_dict(search).summary()}.")
    # the model is that baseline only when this check fell back to it (relative's "W = 1" is its own fall-back)
    if model_line and ended_as_baseline(summary):
        print(f"The model is {pipeline.scoring}: what {what} learned " + _why_baseline(summary)
              + "; 'learnsim search' and 'learnsim index build' use it.")


def _print_film(summary):
    print(f"Metric: FILM, {summary['n_components']} dimensions, svd_rank={summary['svd_rank']}, "
          f"{summary['triplets']} triplets, {summary['n_iter']} iterations "
          f"({'converged' if summary['converged'] else 'not converged'}).")


def _print_search(summary, pipeline, details):
    """A FILM fitted on pairs: its search check in one line, what the model is, its duplicate rule."""
    from ..baseline import BaselineGain

    negatives = summary.get("negatives") or {}
    print(f"FILM learned from {summary['triplets']} triplets: each relevant pair against a hard negative (one of "
          f"its query's best documents by BM25: {negatives.get('hard', 0)}), a random document "
          f"({negatives.get('random', 0)}) and a labelled non-relevant partner ({negatives.get('labelled', 0)})"
          + (f"; a relevant document of a lower grade ({summary['graded_triplets']})"
             if summary.get("graded_triplets") else "") + ".")
    print_held_out(summary)
    report = summary.get("baseline_gain")
    if report is not None:
        gain = BaselineGain.from_dict(report)
        # with a duplicate rule the model is more than its search: only search falls back
        fallback = None if details.matcher is None else f"search is {gain.baseline}"
        print(f"Search against the strongest baseline: {gain.summary(fallback=fallback)}.")
    model = summary.get("model")
    if model not in (None, "learned") and details.matcher is None:
        print(f"The model is {pipeline.scoring}: what FILM learned " + _why_baseline(summary)
              + "; 'learnsim search' and 'learnsim index build' use it.")
    else:
        if "n_components" in summary:
            _print_film(summary)
        kept = "learned" if model in (None, "learned") else f"the baseline, {pipeline.scoring}"
        print(f"Search rule ({kept}): {pipeline.scorer.description}; 'learnsim search' uses it.")
    if details.matcher is not None:
        _print_match_rule(summary, details.held, details.matcher, details.rule)


_RULE_WORDS = {"cosine": "a threshold on the input cosine", "threshold": "a threshold on the mixed cosine",
               "knn": "the pairwise kNN rule in FILM's space", "classifier": "the pair classifier",
               "classifier+film": "the pair classifier with FILM's features"}


def _print_match_rule(summary, held, matcher, rule):
    accuracies = ", ".join(f"{name} {acc:.3f}" for name, acc in rule.accuracies.items())
    print(f"Duplicate rule chosen on {held.n_pairs} held-out pairs: {_RULE_WORDS[rule.matcher]}"
          + (f" (held-out accuracy: {accuracies})" if accuracies else "") + "; 'learnsim match' uses it.")
    if hasattr(matcher, "input_weight_") and matcher.input_weight_ is not None:
        w = matcher.input_weight_
        never = "no pair (no threshold beat calling every pair not a duplicate)"
        print(f"  similarity = {w:g} x input cosine + {1 - w:g} x learned cosine, duplicate from "
              + (f"{matcher.threshold_:.4f}." if math.isfinite(matcher.threshold_) else f"{never}."))
    if rule.baseline_gain is not None:
        print(f"Against the baseline (duplicate rule): {rule.baseline_gain.summary()}.")
    recall = summary.get("rerank_recall_at_1")
    if recall:
        kept = summary.get("rerank")
        print("Search re-ranking: the pair model re-scores the search rule's top 50 "
              + (f"({kept}); 'learnsim search' uses it" if kept else "(not kept: search stays at its first stage)")
              + " (held-out recall@1: " + ", ".join(f"{name} {r:.3f}" for name, r in recall.items()) + ").")
    report = summary.get("rerank_baseline_gain")
    if report is not None:
        from ..baseline import BaselineGain

        print(f"Against the baseline (search re-ranking): {BaselineGain.from_dict(report).summary()}.")


def _print_lexical(search):
    """Over a dense encoder: the weight of the lexical tf.idf cosine mixed into search, and its check."""
    lam = getattr(search, "lexical_weight", None)
    if lam is None:
        return
    print(f"Lexical part of search (input: the encoder's vectors): {lam:g} x tf.idf cosine over the searched "
          f"collection's words + {1 - lam:g} x the rule above, chosen on the same held-out supervision.")
    if search.lexical_gain is not None:
        print(f"Against the better part alone ({search.lexical_gain.baseline}): {search.lexical_gain.summary()}.")


def _fit_graded(args, model_path, summary, texts, pairs):
    """Graded pairs (a score column): the pair regression checked against the input cosine by
    held-out Pearson (learnsim.fitting.fit_graded)."""
    if getattr(args, "matcher", None) not in (None, "auto"):
        raise UsageError("--matcher chooses a duplicate rule; graded pairs (a score column) train the pair "
                         "regression: drop --matcher")
    from ..fitting import fit_graded

    result = fit_graded(fit_options(args), texts, pairs, summary, note=_cli_note, flags=_FLAGS)
    details = result.details
    if save_and_summarise(result, model_path, args):
        return 0
    print_fitted_on(summary, args, result.pipeline.vectorizer, pairs, texts=texts)
    print(f"Metric: FILM from graded triplets, {summary['n_components']} dimensions, {summary['triplets']} "
          f"triplets, {summary['n_iter']} iterations ({'converged' if summary['converged'] else 'not converged'}).")
    rule = details.rule
    pearsons = ", ".join(f"{name} {r:.3f}" for name, r in rule.pearsons.items())
    print(f"Score rule chosen on {details.held.n_pairs} held-out pairs: {rule.describe()} (held-out Pearson: "
          f"{pearsons}); 'learnsim match' and 'learnsim evaluate --pairs' use it.")
    if rule.baseline_gain is not None:
        print(f"Against the baseline (score rule): {rule.baseline_gain.summary()}.")
    search = details.search
    print(f"Search rule chosen on the held-out pairs: {search.input_weight:g} x input cosine + "
          f"{1 - search.input_weight:g} x learned cosine; 'learnsim search' uses it.")
    print_baseline(search.baseline_gain)
    _print_lexical(search)
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {summary['vectorizer_seconds']:.2f} s, metric and "
          f"rules {summary['metric_seconds']:.2f} s); saved {model_path}.")
    return 0
