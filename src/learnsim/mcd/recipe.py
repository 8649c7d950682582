"""mcd's fitting recipe: :class:`MinimumClusterDistortion` from labelled documents or duplicate
pairs, with the weighting of its input chosen on held-out clusters when none is given
(``learnsim fit --method mcd``, :func:`learnsim.fit` with ``method="mcd"``).

:mod:`learnsim.fitting` checks the supervision and the options and calls :func:`fit_mcd`; it
returns a :class:`learnsim._fit_common.Fitted` (the report, the parts and the timings), which
``fitting`` wraps into its :class:`learnsim.fitting.FitResult`.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from .._cluster_weights import weighted_labels
from .._fit_common import Fitted, option_name as _flag, report_dict as _report, vectorize
from .._utils.progress import stage
from ..baseline._said import replay

__all__ = ["MCD_WEIGHTINGS", "mcd_settings", "fit_mcd", "cluster_search_learner"]

# mcd without a weighting: the input weightings tried on the held-out clusters (BM25 document
# weights won every fold of benchmarks/mcd_inductive.py, tf.idf is the usual default)
MCD_WEIGHTINGS = ("tfidf", "bm25")


def minus_distances_to(metric, B):
    """._scoring's, imported when a check scores: it reads scikit-learn's validation (and with it
    pandas, where installed), which importing learnsim.fitting must not."""
    from ._scoring import minus_distances_to as scores_to

    return scores_to(metric, B)


def mcd_settings(paper=False, given=None, flags=None):
    """MinimumClusterDistortion's settings: the paper's (``paper``) or those ``given`` (a dict of
    n_basis, shrinkage, complement_weight; n_basis None is the whole feature space), "auto" for
    those not given."""
    from ._mcd import PAPER_PARAMS

    given = dict(given or {})
    if paper:
        if given:
            clash = [_flag(flags, k) for k in given]
            raise ValueError(f"paper fixes n_basis=none, shrinkage=0 and complement_weight=0; "
                             f"drop {' and '.join(clash)} or paper")
        return dict(PAPER_PARAMS)
    return {k: given.get(k, "auto") for k in ("n_basis", "shrinkage", "complement_weight")}


def fit_mcd(o, texts, labels, pairs, settings, summary, quiet=False):
    """mcd: with no weighting given, each weighting of MCD_WEIGHTINGS gets its own guarded fit on
    the same held-out clusters, and the one whose model scores best there is kept.

    ``quiet``: the kept fit's own warnings (too few clusters to select settings, not checked
    against Euclid) are not shown: the caller replaces its model by a baseline and says why.

    Returns a :class:`learnsim._fit_common.Fitted` (:func:`learnsim.fitting.fit_mcd`: a
    FitResult); its details: chosen (the weighting), scores ({weighting: held-out score}, None
    when a single weighting was fitted).
    """
    # with an encoder there is no weighting to choose: its vectors are the input
    candidates = [o.weighting] if o.weighting or o.encoder is not None else list(MCD_WEIGHTINGS)
    fits, vec_seconds, metric_seconds = {}, 0.0, 0.0
    said = set()
    for weighting in candidates:
        with warnings.catch_warnings(record=True) as read:
            warnings.simplefilter("always")
            vectorizer, X, seconds = vectorize(o, texts, weighting, summary)
        # each weighting reads the same texts: what the reading says (the stemmer of the
        # language detected, empty documents) was said once per weighting, twice a fit
        fresh = []
        for w in read:
            if (w.category, str(w.message)) not in said:
                said.add((w.category, str(w.message)))
                fresh.append(w)
        replay(fresh)
        vec_seconds += seconds
        metric, y = _mcd_with_supervision(o, settings, X, labels, pairs, summary)
        start = time.perf_counter()
        # a losing candidate's warnings are not the user's concern: only the kept one's are shown
        with warnings.catch_warnings(record=True) as caught, stage(f"mcd: learning the metric ({weighting} weights)"):
            warnings.simplefilter("always")
            metric.fit(X, y)
        metric_seconds += time.perf_counter() - start
        fits[weighting] = (vectorizer, metric, caught)
        if metric.baseline_gain_ is None or metric.baseline_gain_.status == "unchecked":
            break   # no held-out clusters to choose a weighting by
    scores = {w: _held_out_score(m.baseline_gain_) for w, (_, m, _) in fits.items()}
    chosen = max(fits, key=lambda w: (scores[w] if scores[w] is not None else -1.0, -candidates.index(w)))
    vectorizer, metric, caught = fits[chosen]
    from ..baseline import too_few_held_clusters
    from ..baseline._said import fell_back

    # the search check follows (learnsim.fitting.fit_mcd): with too few clusters to hold whole
    # ones out (4 or 5), it holds out items of each cluster (baseline._items) and keeps the learned
    # metric or the strongest baseline, its one warning saying which. This check's own (not
    # checked against Euclid: 4 clusters; holding 2 out needs 6) was a second warning of the one
    # cause, answered by that search check; it stays in the report (baseline_gain)
    not_kept = pairs is None and o.baseline_holdout is not None and too_few_held_clusters(labels)
    if not quiet:
        replay(caught, drop=fell_back if not_kept else None)
    summary.update(weighting=chosen, features=int(metric.n_features_in_),
                   lsi_components=getattr(vectorizer, "n_components_", None))
    if len(fits) > 1:
        summary["weighting_selection"] = scores
    summary.update(n_basis=metric.n_basis_, shrinkage=metric.shrinkage_,
                   complement_weight=metric.complement_weight_, solver=metric.solver_,
                   baseline_gain=_report(metric.baseline_gain_))
    return Fitted(summary, {"vectorizer": vectorizer, "metric": metric}, vec_seconds, metric_seconds,
                   chosen=chosen, scores=scores if len(fits) > 1 else None)


def cluster_search_learner(o, texts, settings, fitted, X):
    """``learn(training labels)`` for the search check on held-out clusters
    (:func:`learnsim.fitting.fit_mcd`): a query's scores, minus the learned distance to every text.

    Where the fit chose anything on held-out clusters (the weighting, the ``"auto"`` settings),
    this whole recipe runs again on the training clusters alone, so that nothing the check scores
    was chosen with its held-out clusters in view: chosen on every cluster and then fixed, the
    check's gain came out at 2.8x what the same held-out clusters give on 20 Newsgroups (40 a
    group). Where nothing was chosen (too few clusters to hold any out: the settings are the
    rules' defaults, which saw no score), the fit's settings are fitted on the training clusters
    of ``X``, the fit's own vectors: a recipe run on half as few clusters would give other
    defaults, and check another model than the one kept."""
    metric = fitted.parts["metric"]
    gain = metric.baseline_gain_
    if fitted.details.get("scores") is None and (gain is None or gain.status == "unchecked"):
        from ._mcd import MinimumClusterDistortion

        fixed = {"n_basis": metric.n_basis_, "shrinkage": metric.shrinkage_,
                 "complement_weight": metric.complement_weight_}

        def learn_fixed(train_labels):
            probe = MinimumClusterDistortion(**fixed, baseline_holdout=None, random_state=o.random_state)
            with stage("mcd: learning the metric on the training clusters"):
                probe.fit(X, weighted_labels(o, train_labels))
            to_all = minus_distances_to(probe, X)
            return lambda q: to_all(X[q])
        return learn_fixed
    from ..text.encoders import encode

    def learn(train_labels):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # the check's own fit: its fall-backs are not the user's
            probe = fit_mcd(o, texts, train_labels, None, settings, {})
        vectorizer, metric = probe.parts["vectorizer"], probe.parts["metric"]
        Xp = vectorizer.transform(texts) if o.encoder is None else encode(o.encoder, texts)
        Xp = Xp.astype(np.float64) if Xp.dtype != np.float64 else Xp
        to_all = minus_distances_to(metric, Xp)
        return lambda q: to_all(Xp[q])
    return learn


def _held_out_score(report):
    """The held-out score of what a guarded model uses (learned or baseline), or None."""
    if report is None or report.status == "unchecked":
        return None
    return report.learned_score if report.status == "learned" else report.baseline_score


def _mcd_with_supervision(o, settings, X, labels, pairs, summary):
    """The MinimumClusterDistortion to fit and the clusters to fit it on."""
    from ..supervision import pairs_to_clusters
    from ._mcd import MinimumClusterDistortion

    if pairs is not None:
        # the groups of texts that chains of duplicate pairs join are the clusters
        labels = np.asarray(pairs_to_clusters(pairs, X.shape[0]).labels)
        summary.update(clustered_documents=int((labels >= 0).sum()),
                       clusters=int(np.unique(labels[labels >= 0]).size))
    # progress bars of the selection show on a terminal (see learnsim._progress)
    metric = MinimumClusterDistortion(**{**settings, "baseline_holdout": o.baseline_holdout}, random_state=o.random_state)
    return metric, labels if pairs is not None else weighted_labels(o, labels)



def search_learner(o, settings, X, P, labels, texts=None, vectorizer=None):
    """FILM's counterpart for :func:`learnsim.baseline.validate_search` (issue 42): fits
    MinimumClusterDistortion on the groups of texts that chains of the training part's duplicate
    pairs join (``P[train]``, ``labels[train]``), and scores a query's documents by minus the
    learned distance. A distance mixes with no cosine, so the one rule is the metric alone.

    ``texts``: where the fit chose its weighting on held-out clusters (of every pair, so of the
    check's held-out queries too), the whole recipe runs again on the training part's pairs
    (:func:`fit_mcd`), as :func:`cluster_search_learner` does on clusters; else ``X``, the fit's
    own vectors, with ``settings``. ``vectorizer``: the one that made ``X``, with which the check
    scores its plain queries (:mod:`learnsim.baseline._probe`; None: none)."""
    from ..supervision import Pairs, pairs_to_clusters
    from ._mcd import MinimumClusterDistortion

    def learn(train, baselines, quiet=False):     # (mcd says nothing a fold would repeat)
        part = Pairs(P[train], labels=labels[train])
        if texts is None:
            clusters = np.asarray(pairs_to_clusters(part, X.shape[0]).labels)
            metric = MinimumClusterDistortion(**{**settings, "baseline_holdout": None}, random_state=o.random_state)
            with stage("mcd: learning the metric on the training part"):
                metric.fit(X, clusters)
            Xp, vec = X, vectorizer
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")     # the check's own fit: its fall-backs are not the user's
                probe = fit_mcd(o, texts, None, part, settings, {})
            metric, vec = probe.parts["metric"], probe.parts["vectorizer"]
            Xp = vec.transform(texts)
            Xp = Xp.astype(np.float64) if Xp.dtype != np.float64 else Xp
        documents = baselines.documents
        # the documents' side once, for every block of queries and plain queries (._scoring)
        to_documents = minus_distances_to(metric, Xp[documents])

        def minus_distance(q):
            return to_documents(Xp[q])

        def new_texts(block):
            Z = vec.transform(list(block))
            Z = Z.astype(np.float64) if Z.dtype != np.float64 else Z
            return {"mcd": to_documents(Z)}
        return {"mcd": minus_distance}, [{"mcd": 1.0}], (None if vec is None else new_texts)
    return learn
