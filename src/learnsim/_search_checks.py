"""The search checks of a fit: each method's model, fitted by its recipe, checked as search is
used (issue 42) on queries and documents it never saw, against the strongest baseline (BM25, the
tf.idf cosine and, over an encoder, the encoder's cosine); a model that does not beat it ends as
that baseline's model.

The protocol itself (the splits, the pools of held-out searches, the decision) is
:mod:`learnsim.baseline`'s. What is here is how each kind of supervision becomes held-out
searches: whole held-out clusters (:func:`checked_cluster_search`), held-out queries and documents
of pairs or judgements (:func:`checked_mcd_search`; FILM's own is in :mod:`learnsim.fitting`, as its
rules are chosen in the same pass), the documents a link fit held out (:func:`checked_links_search`)
and the anchors a triplet fit held out (:func:`checked_relative_search`).

It sits above :mod:`learnsim.pipeline` (the model is searched as it serves, and the baseline's model
is a pipeline), so not in the method packages below it; :mod:`learnsim.fitting` calls it after the
recipe. Each check takes the recipe's :class:`learnsim._fit_common.Fitted`, adds to its report
(``search_baseline_gain``, ``strongest_baseline``, ``baseline_scores``, ``model``) and, where the
model loses, replaces its parts by the baseline's; it returns that Fitted for ``fitting`` to make
the :class:`learnsim.fitting.FitResult` of.
"""
from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np

from ._fit_common import pair_grades, report_dict as _report
from ._utils.progress import stage
from .mcd import recipe as mcd_recipe

__all__ = ["search_unchecked", "baseline_model", "checked_cluster_search", "clusters_too_few", "few_cluster_judgements",
           "checked_mcd_search", "checked_links_search", "checked_relative_search"]

# Clusters too few to hold two out and learn from two: the strongest baseline is chosen on at most
# this many clustered items asking for their cluster mates (a seeded sample), holding at most
# FEW_CLUSTERS_ENTRIES mates in all (three clusters of 5,000 would make 75 million pairs)
FEW_CLUSTERS_QUERIES = 300
FEW_CLUSTERS_ENTRIES = 500_000


def said_if_kept(said, kept):
    """Warn again what a method's fit said (``said``, recorded warnings), its own check's
    fall-back ('FILM: ...' or 'MinimumClusterDistortion: ...; so the model falls back to the
    baseline', the input cosine or Euclid) only where the model saved is the method's
    (``kept``): where the search check that follows made the model its strongest baseline (e.g.
    BM25), that check's warning says so, and the method's named a model that is not saved (its
    report stays in baseline_gain). Other warnings pass as they were. In general: the recorded
    fall-back warnings are said only where ``kept`` says the model they describe is saved (the
    relative search check passes ``not keep``: kept learned weights make its checks' fall-backs
    untrue)."""
    from .baseline._said import fell_back, replay

    replay(said, drop=None if kept else fell_back)


def search_unchecked(o, summary, fitted, reason):
    """A fit too small to check as search is used: the report says so and why
    (search_baseline_gain 'unchecked'), where it said nothing."""
    from .baseline import BaselineGain

    summary["search_baseline_gain"] = _report(BaselineGain(
        status="unchecked", reason=reason, baseline="the strongest of BM25, the tf.idf cosine"
        + (" and the encoder's cosine" if o.encoder is not None else "")))
    return fitted


def baseline_model(o, check, texts, baselines):
    """The model a fit ends as where its search check fell back (``check.fell_back``, or a fit too
    small to check whose judged queries chose it): the strongest baseline, ``check.baseline`` (over
    an encoder, mixed with BM25 at the check's own weight), its term counts fitted on ``texts`` and
    read in the language the check's ``baselines`` read. One place, so that every method ends as
    the same baseline model the check measured (:func:`learnsim._baseline_models.baseline_pipeline`)."""
    from ._baseline_models import baseline_pipeline

    return baseline_pipeline(check.baseline, list(texts), encoder=o.encoder, lexical_weight=check.mix_weight,
                             analysis=o.analysis, language=baselines.lexical.language)


def checked_cluster_search(o, texts, labels, X, learn, owner, summary, fitted):
    """A model fitted on clusters, used for search: checked on whole held-out clusters (each item
    searching every text for the other items of its cluster; in folds where they are few) against
    the strongest baseline (:func:`learnsim.baseline.check_search`); ``learn(training labels)``
    fits the method on the other clusters and returns its scores. A model that does not beat the
    strongest baseline is that baseline's (issue 42)."""
    from .baseline import (FoldedPools, FoldedSplit, SearchBaselines, check_search, fold_runs, lexical_language,
                           split_clusters, too_few_held_clusters)

    start = time.perf_counter()
    y = np.asarray(labels)
    got = split_clusters(y, o.baseline_holdout, random_state=o.random_state)
    if got is None:
        return _few_clusters_baseline(o, texts, y, X, owner, summary, fitted)
    if too_few_held_clusters(y):
        # 4-5 clusters: their whole-cluster check could never keep anything (fewer groups than it
        # needs); checked on held-out items of each cluster instead, the use of so few clusters
        from ._cluster_items import checked_cluster_item_search

        items = checked_cluster_item_search(o, texts, y, X, learn, owner, summary, fitted, baseline_model)
        if items is not None:
            fitted.metric_seconds += time.perf_counter() - start
            return items
    parts = [got]
    # few held-out items or clusters: further runs of clusters, each held out of its own fit, as judgements' folds
    runs = fold_runs(got[1].n_queries, groups=np.unique(got[1].groups).size)
    for k in range(1, runs):
        more = split_clusters(y, o.baseline_holdout, random_state=o.random_state, fold=k)
        if more is None:
            break
        parts.append(more)
    with stage("checking search on held-out clusters against the strongest baseline"):
        dense = o.encoder is not None
        baselines = SearchBaselines(texts, got[1].documents, encoder_vectors=X if dense else None, analysis=o.analysis,
                                    language=lexical_language(o.language))
        pools = [baselines.pool(split, learned={"learned": learn(train_labels)}, random_state=o.random_state,
                                judged=k == 0) for k, (train_labels, split) in enumerate(parts)]
        pool = pools[0] if len(pools) == 1 else FoldedPools(pools)
        split = parts[0][1] if len(parts) == 1 else FoldedSplit([split for _, split in parts])
        check = check_search(pool, [{"learned": 1.0}], owner=owner, random_state=o.random_state, stacklevel=4)
    fitted.metric_seconds += time.perf_counter() - start
    summary.update(search_baseline_gain=_report(check.report), held_out=split.describe(),
                   strongest_baseline=check.baseline, baseline_scores=check.scores,
                   model="learned" if not check.fell_back else check.baseline)
    if check.fell_back:
        fitted.parts = dict(baseline_model(o, check, texts, baselines).parts)
    return fitted


def clusters_too_few(o, labels):
    """Whether a fit on the clusters ``labels`` has too few of them to check its search on held-out
    clusters, and so ends as the strongest baseline (:func:`checked_cluster_search`): the learner's
    own warnings are then about a model that is not kept."""
    from .baseline import split_clusters

    return o.baseline_holdout is not None and split_clusters(
        np.asarray(labels), o.baseline_holdout, random_state=o.random_state) is None


def few_cluster_judgements(labels, random_state=0):
    """The judged queries of clusters too few to hold any out: a seeded sample of the clustered
    items that have a cluster mate (at most FEW_CLUSTERS_QUERIES, holding at most
    FEW_CLUSTERS_ENTRIES mates in all, and at least two where there are), each asking for every
    other item of its cluster.

    Returns
    -------
    (queries, relevant): the queries (sorted) and, for each, ``{mate: 1.0}``.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim._search_checks import few_cluster_judgements
    >>> few_cluster_judgements(np.array([0, 0, 1, -1, 2, 2, 2]))
    (array([0, 1, 4, 5, 6]), ({1: 1.0}, {0: 1.0}, {5: 1.0, 6: 1.0}, {4: 1.0, 6: 1.0}, {4: 1.0, 5: 1.0}))
    """
    from sklearn.utils import check_random_state

    y = np.asarray(labels, dtype=np.int64)
    ids, sizes = np.unique(y[y >= 0], return_counts=True)
    members = {int(c): np.flatnonzero(y == c) for c in ids[sizes > 1]}
    candidates = np.flatnonzero(np.isin(y, ids[sizes > 1]))
    queries, total = [], 0
    for q in check_random_state(random_state).permutation(candidates).tolist():
        n = members[int(y[q])].size - 1
        if total + n > FEW_CLUSTERS_ENTRIES and len(queries) >= 2:
            break
        queries.append(q)
        total += n
        if len(queries) >= FEW_CLUSTERS_QUERIES:
            break
    queries = np.sort(np.asarray(queries, dtype=np.int64))
    return queries, tuple({int(d): 1.0 for d in members[int(y[q])] if d != q} for q in queries)


def _few_clusters_baseline(o, texts, y, X, owner, summary, fitted):
    """Clusters too few to hold two out and learn from two: the learner cannot be checked, so it is
    not kept. The model is the strongest baseline on the clustered items asking for their cluster
    mates (:func:`few_cluster_judgements`; :func:`learnsim.baseline.baseline_of_judgements`, as
    judgements too few to check end): kept unchecked, mcd on 60 Chinese notes in 3 topics searched
    a weather question to three food notes, nDCG@10 0.600 against BM25's 0.752."""
    from .baseline import baseline_of_judgements, lexical_language

    n = int(np.count_nonzero(np.unique(y[y >= 0], return_counts=True)[1] > 1))
    queries, relevant = few_cluster_judgements(y, random_state=o.random_state)
    P = np.array([(q, d) for q, rel in zip(queries.tolist(), relevant) for d in rel], dtype=np.int64).reshape(-1, 2)
    dense = o.encoder is not None
    start = time.perf_counter()
    with stage("choosing the strongest baseline on the clustered items"):
        baselines, check = baseline_of_judgements(
            texts, P, np.ones(len(P)), owner=owner, documents=np.arange(len(texts)),
            reason=f"{n} cluster{'' if n == 1 else 's'} of two or more items: too few clusters to hold two out "
                   "and learn from two (the judged queries: clustered items asking for their cluster mates)",
            encoder_vectors=X if dense else None, analysis=o.analysis, language=lexical_language(o.language),
            stacklevel=5)
    fitted.metric_seconds += time.perf_counter() - start
    summary.update(search_baseline_gain=_report(check.report), strongest_baseline=check.baseline,
                   baseline_scores=check.scores, model=check.baseline)
    fitted.parts = dict(baseline_model(o, check, texts, baselines).parts)
    return fitted


def checked_mcd_search(o, texts, pairs, settings, summary, fitted, documents=None):
    """mcd from pairs, used for search: checked as FILM's search is (issue 42), on held-out queries
    and documents against the strongest baseline; a fit that loses there is that baseline."""
    from .baseline import lexical_language, orient_pairs, validate_search

    labels = np.asarray(pairs.labels, dtype=bool)
    P = orient_pairs(np.asarray(pairs.indices, dtype=np.int64), labels, documents)
    grades, judged = pair_grades(pairs)
    vectorizer = fitted.parts["vectorizer"]
    X = vectorizer.transform(texts)
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    # a weighting chosen on held-out clusters of every pair: chosen again on the training part's
    learn = mcd_recipe.search_learner(o, settings, X, P, labels, vectorizer=vectorizer,
                                      texts=texts if fitted.details.get("scores") is not None else None)
    start = time.perf_counter()
    with stage("mcd: checking search on held-out queries and documents against the strongest baseline"):
        checked = validate_search(texts, P, grades, learn, owner="learnsim fit --method mcd",
                                  documents=documents, fraction=o.pairs_validation_fraction,
                                  random_state=o.random_state, stacklevel=3, analysis=o.analysis,
                                  language=lexical_language(o.language))
    fitted.metric_seconds += time.perf_counter() - start
    if checked is None and judged:      # nothing to check mcd on: the judged queries choose the baseline
        from .baseline import baseline_of_judgements
        checked = (None, *baseline_of_judgements(texts, P, grades, owner="learnsim fit --method mcd", reason="too few "
                   "queries to hold two out and learn from two", documents=documents, analysis=o.analysis,
                   language=lexical_language(o.language), stacklevel=3))
    if checked is None:
        return fitted
    split, baselines, check = checked
    summary.update(search_baseline_gain=_report(check.report), strongest_baseline=check.baseline,
                   **({"held_out": split.describe(), "search_split": split.by} if split else {}),
                   baseline_scores=check.scores,
                   model="learned" if not check.fell_back else check.baseline)
    if check.fell_back:
        fitted.parts = dict(baseline_model(o, check, [texts[i] for i in baselines.documents], baselines).parts)
    return fitted


def checked_links_search(o, texts, held_out, owner, summary, fitted):
    """A weighting learned from links, used for search: the documents its own check held out (with
    their links among them; the model never saw them) each search every text for the documents
    they link with, under the model as it serves and under the strongest baseline
    (:func:`learnsim.baseline.check_search`); a model that does not beat it is that baseline's."""
    from .baseline import SearchBaselines, SearchSplit, check_search, judged_links, lexical_language
    from .pipeline import Pipeline

    docs, adjacency, trained, every = held_out
    trained = set(np.asarray(trained).tolist())
    start = time.perf_counter()
    queries, relevant, seen = [], [], []
    for i, q in enumerate(np.asarray(docs).tolist()):
        linked = adjacency.indices[adjacency.indptr[i]:adjacency.indptr[i + 1]]
        rel = {int(d): 1.0 for d in linked if d != q}
        if rel:
            queries.append(int(q))
            relevant.append(rel)
            # warm: linked documents the training links name; cold: the others (held out too)
            seen.append(frozenset(d for d in rel if d in trained))
    if len(queries) < 2:
        return search_unchecked(o, summary, fitted, f"{len(queries)} held-out document(s) with links: at least two "
                                "are needed")
    queries = np.asarray(queries, dtype=np.int64)
    order = np.argsort(queries)
    # every document with a link (a seeded sample) chooses the strongest baseline
    judged = judged_links(every, random_state=o.random_state)
    split = SearchSplit(train=np.zeros(0, dtype=bool), held=np.zeros(0, dtype=bool), queries=queries[order],
                        relevant=tuple(relevant[i] for i in order), seen=tuple(seen[i] for i in order),
                        documents=np.arange(len(texts)), groups=queries[order].copy(), by="documents",
                        n_cold_documents=int(len(docs)), judged=judged,
                        named=np.array(sorted(trained), dtype=np.int64))
    model = Pipeline.from_parts(fitted.parts)
    with stage("checking search on held-out documents against the strongest baseline"):
        found = model.searcher(list(texts))
        baselines = SearchBaselines(texts, split.documents, analysis=o.analysis, language=lexical_language(o.language))
        pool = baselines.pool(split, learned={"learned": lambda q: found.closeness([texts[i] for i in q])},
                              random_state=o.random_state)
        check = check_search(pool, [{"learned": 1.0}], owner=owner, random_state=o.random_state, stacklevel=4)
    fitted.metric_seconds += time.perf_counter() - start
    summary.update(search_baseline_gain=_report(check.report), strongest_baseline=check.baseline,
                   baseline_scores=check.scores, model="learned" if not check.fell_back else check.baseline,
                   held_out=f"{split.n_queries} held-out documents with links searching all {len(texts)} documents")
    # a weighting that fell back to its own baseline already is the strongest one when they agree
    # (a LinkLearn that fell back scores as the tf.idf cosine, a LearnedBM25 at BM25's parameters as BM25)
    already = {"tf.idf cosine": "cosine", "BM25": "bm25"}.get(model.scoring)
    if check.fell_back and check.baseline != already:
        fitted.parts = dict(baseline_model(o, check, texts, baselines).parts)
    return fitted


def checked_relative_search(o, texts, T, held_out, summary, fitted):
    """Relative comparisons used for search: each anchor whose triplets were held out searches the
    collection (the first ``o.n_documents`` texts, or every text but those that are only anchors)
    for the texts its triplets put closer and never farther, under the weights learned without it
    (at a C chosen without it: :func:`learnsim.baseline.cross_folds`) and under the strongest baseline (:func:`learnsim.baseline.check_search`); the texts some
    training triplet names are its warm part, the others its cold part. A model that does not beat
    the strongest baseline is that baseline's."""
    from .baseline import BaselineWarning, SearchBaselines, SearchSplit, check_search, judged_triplets, lexical_language
    from .pipeline import Pipeline

    fit_T, valid_T, probes = held_out
    n = len(texts)
    if o.n_documents is not None:
        documents = np.arange(min(int(o.n_documents), n))
    else:
        only_anchors = np.setdiff1d(T[:, 0], T[:, 1:].ravel())
        documents = np.setdiff1d(np.arange(n), only_anchors)
    in_collection = np.zeros(n, dtype=bool)
    in_collection[documents] = True
    named = np.zeros(n, dtype=bool)
    named[fit_T.ravel()] = True
    queries, relevant, seen = [], [], []
    for a in np.unique(valid_T[:, 0]).tolist():
        mine = valid_T[valid_T[:, 0] == a]
        closer = set(mine[:, 1].tolist()) - set(mine[:, 2].tolist())
        rel = {int(d): 1.0 for d in sorted(closer) if in_collection[d] and d != a}
        if rel:
            queries.append(int(a))
            relevant.append(rel)
            seen.append(frozenset(d for d in rel if named[d]))
    if len(queries) < 2 or documents.size < 2:
        return search_unchecked(o, summary, fitted, f"{len(queries)} held-out anchor(s) with a closer text among "
                                f"{documents.size} document(s) searched: at least two of each are needed")
    start = time.perf_counter()
    queries = np.asarray(queries, dtype=np.int64)
    split = SearchSplit(train=np.zeros(0, dtype=bool), held=np.zeros(0, dtype=bool), queries=queries,
                        relevant=tuple(relevant), seen=tuple(seen), documents=documents, groups=queries.copy(),
                        by="query and document", n_cold_documents=int(np.count_nonzero(~named[documents])),
                        judged=judged_triplets(T, in_collection, random_state=o.random_state),
                        named=np.flatnonzero(named))
    doc_texts = [texts[i] for i in documents]
    owner = "learnsim fit --method relative"
    with stage("checking search on the held-out anchors against the strongest baseline"), \
            warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", BaselineWarning)
        # each held-out anchor searches with the metric whose C was chosen without it
        searchers = [(anchors, Pipeline.from_parts({"vectorizer": fitted.parts["vectorizer"], "metric": probe})
                      .searcher(doc_texts)) for anchors, probe in probes]

        def found(q):
            q = np.asarray(q, dtype=np.int64)
            out = np.zeros((q.size, documents.size))
            for anchors, searcher in searchers:
                mine = np.isin(q, anchors)
                if mine.any():
                    out[mine] = np.asarray(searcher.closeness([texts[i] for i in q[mine]]), dtype=np.float64)
            return out
        baselines = SearchBaselines(texts, documents, analysis=o.analysis, language=lexical_language(o.language))
        pool = baselines.pool(split, learned={"learned": found}, random_state=o.random_state)
        check = check_search(pool, [{"learned": 1.0}], owner=owner, random_state=o.random_state, stacklevel=4)
        triplets = _relative_triplets_against_lexical(o, texts, valid_T, documents, found, baselines, owner)
    fitted.metric_seconds += time.perf_counter() - start
    search = check.report
    # The triplets are what the user said "similar" means: the learned weights stay when they beat
    # the strongest lexical baseline on the held-out triplets and, as search, are not below it for
    # certain (overall or cold); as search alone (nDCG@10 of the texts the triplets put closer)
    # they need not beat it, since a search's top ten is only part of what the triplets order.
    below = search.ci_high < 0 or (search.cold is not None and search.cold["ci_high"] < 0)
    keep = not check.fell_back or (triplets is not None and not triplets.fell_back and not below)
    if keep and check.fell_back:
        search = dataclasses.replace(search, status="learned", reason=None, detail=dict(
            search.detail, kept="it beats the strongest baseline on the held-out triplets and, as search, is not "
                                "below it for certain"))
    # kept: the checks' fall-backs name a model not saved
    said_if_kept(said, not keep)
    summary.update(search_baseline_gain=_report(search), strongest_baseline=check.baseline,
                   baseline_scores=check.scores,
                   held_out=f"{split.n_queries} held-out anchors searching {documents.size} documents")
    if triplets is not None:
        summary["triplet_baseline_gain"] = _report(triplets)
    if not keep:
        summary["model"] = check.baseline
        fitted.parts = dict(baseline_model(o, check, doc_texts, baselines).parts)
    return fitted


def _relative_triplets_against_lexical(o, texts, valid_T, documents, found, baselines, owner):
    """The held-out triplets (those whose two items are in the collection) scored per anchor (1
    right, 1/2 tie, 0 wrong) under the weights learned without them and under BM25 and the tf.idf
    cosine; the learned weights against the better of the two (:func:`learnsim.baseline.compare`,
    bootstrap over anchors). ``found(anchors)``: their closeness to each document under the weights
    learned without them. None without two such anchors."""
    from .baseline import BASELINE_TITLES, compare

    position = np.full(len(texts), -1, dtype=np.int64)
    position[documents] = np.arange(documents.size)
    T = valid_T[(position[valid_T[:, 1]] >= 0) & (position[valid_T[:, 2]] >= 0)]
    anchors, row = np.unique(T[:, 0], return_inverse=True)
    if anchors.size < 2:
        return None
    sums = {name: np.zeros(anchors.size) for name in ("learned", "bm25", "cosine")}
    step = max(1, 2 ** 22 // max(documents.size, 1))
    for start in range(0, anchors.size, step):
        chunk = np.arange(start, min(start + step, anchors.size))
        blocks = baselines.base_blocks(anchors[chunk])
        blocks = {"learned": found(anchors[chunk]),
                  "bm25": blocks["bm25"], "cosine": blocks["cosine"]}
        mine = np.isin(row, chunk)
        r = row[mine] - start
        near, far = position[T[mine, 1]], position[T[mine, 2]]
        for name, S in blocks.items():
            S = S.toarray() if hasattr(S, "toarray") else np.asarray(S)
            b, c = S[r, near], S[r, far]
            sums[name] += np.bincount(row[mine], weights=(b > c) + 0.5 * (b == c), minlength=anchors.size)
    counts = np.bincount(row, minlength=anchors.size)
    means = {name: v / counts for name, v in sums.items()}
    strongest = max(("bm25", "cosine"), key=lambda name: means[name].mean())
    return compare(means["learned"], means[strongest], measure="triplet accuracy (mean per anchor, a tie counts 1/2)",
                   unit=f"held-out anchors ({len(T)} triplets)", baseline_name=BASELINE_TITLES[strongest],
                   owner=owner, random_state=o.random_state, stacklevel=4,
                   detail={"strongest_baseline": strongest, "bm25": float(means["bm25"].mean()),
                           "cosine": float(means["cosine"].mean())})
