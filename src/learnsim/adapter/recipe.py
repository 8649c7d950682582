"""The query-side adapter's fitting recipe (``learnsim fit --method adapter``,
:func:`learnsim.fit` with ``method="adapter"``): from relevance judgements or pairs over a
pre-trained sentence encoder, checked as search is used.

1. The supervision is held out by query and by document (:func:`learnsim.baseline.split_search`).
   Adapters of each ridge weight of :data:`ALPHA_GRID` learn from the other queries' triplets
   (each relevant pair against a hard negative among BM25's best documents, a random one, a
   labelled non-relevant one and a relevant one of a lower grade:
   :func:`learnsim.film.recipe.search_triplets`; and against one of the query's best documents
   by the encoder's own cosine that no judgement calls relevant).
2. Each held-out query searches the whole collection under the rules ``lambda x BM25 + (1 -
   lambda) x (w x the encoder's cosine + (1 - w) x the adapter's)`` and under the baselines (BM25,
   the tf.idf cosine, the encoder's cosine and its mix with BM25); the rule kept is the best
   overall among those not below the strongest baseline on the cold part, and only when it beats
   that baseline (:func:`learnsim.baseline.check_search`). Otherwise the model is that baseline.
3. The adapter of the chosen ridge weight learns again from every query.

:mod:`learnsim.fitting` checks the options and calls :func:`fit_adapter`, which returns a
:class:`learnsim._fit_common.Fitted`.
"""
from __future__ import annotations

import time

import numpy as np

from .._fit_common import Fitted, quiet as _quiet, report_dict as _report, vectorize
from .._utils.progress import stage

__all__ = ["ALPHA_GRID", "fit_adapter"]

#: The ridge weights (eq. 2 of :mod:`learnsim.adapter._adapter`) tried on the held-out queries.
ALPHA_GRID = (0.3, 1.0, 3.0)


def _rules():
    """(candidates over the bases of each alpha, (alpha, w, lambda) of each)."""
    from ..film.recipe import SEARCH_WEIGHT_GRID as grid

    params = [(a, w, lam) for a in ALPHA_GRID for lam in grid for w in grid if lam < 1.0 and w < 1.0]
    return [{"bm25": lam, "encoder": (1 - lam) * w, f"adapter@{a:g}": (1 - lam) * (1 - w)}
            for a, w, lam in params], params


def fit_adapter(o, texts, pairs, summary, documents=None, note=_quiet):
    """A :class:`learnsim.adapter.QueryAdapter` over ``o.encoder`` from ``pairs`` (a
    :class:`learnsim.supervision.Judgements` or labelled :class:`learnsim.supervision.Pairs` of
    query and relevant document indices into ``texts``), chosen and checked on held-out queries
    (module notes); ``documents``: the collection's positions in ``texts``.

    Returns a :class:`learnsim._fit_common.Fitted`; its details: check (the search check or None).
    """
    from ..baseline import lexical_language, orient_pairs, unchecked, validate_search
    from ..film import SearchRule
    from ..film.recipe import search_triplets
    from ..supervision import relevance_grades
    from ._adapter import QueryAdapter

    if o.encoder is None:
        raise ValueError("the query-side adapter maps a sentence encoder's query embeddings: give an encoder "
                         "(encoder=, --encoder)")
    labels = np.asarray(pairs.labels, dtype=bool)
    if not labels.any():
        raise ValueError("no relevant pair (grade > 0 or label 1): the adapter learns from relevant documents")
    P = orient_pairs(np.asarray(pairs.indices, dtype=np.int64), labels, documents)
    grades = relevance_grades(pairs)
    encoder, X, vec_seconds = vectorize(o, texts, None, summary)
    start = time.perf_counter()
    state = {}

    def learn(train, baselines, quiet=False, alphas=ALPHA_GRID):
        say = (lambda *args, **kwargs: None) if quiet else note
        T, counts = search_triplets(P[train], grades[train], texts, X, baselines, o.random_state, say)
        D = _unit(X[baselines.documents])
        # and the encoder's own hard negatives: each relevant pair against one of the query's best
        # documents by the encoder's cosine that no judgement calls relevant (the map moves queries
        # only, so documents no judgement names are fair negatives)
        E = _encoder_negatives(P[train], grades[train], X, baselines.documents, D, o.random_state)
        T = np.vstack([T, E]) if len(E) else T
        counts = dict(counts, encoder=int(len(E)), triplets=int(len(T)))
        bases = {}
        for a in alphas:
            with stage(f"adapter: learning the query map from {len(T)} triplets (alpha {a:g})"):
                adapter = QueryAdapter(alpha=a).fit(X, T)
            state[a] = adapter
            Q = _unit(adapter.transform_queries(X))
            bases[f"adapter@{a:g}"] = (lambda q, Q=Q: Q[q] @ D.T)
        state["counts"] = counts
        adapters = {a: state[a] for a in alphas}

        def new_texts(block):
            # the check's plain queries (learnsim.baseline._probe), encoded as the fit's queries are
            from ..text.encoders import encode

            Z = np.asarray(encode(encoder, list(block)), dtype=np.float64)
            out = {"encoder": _unit(Z) @ D.T}
            for a, adapter in adapters.items():
                out[f"adapter@{a:g}"] = _unit(adapter.transform_queries(Z)) @ D.T
            return out
        return bases, _rules()[0], new_texts

    owner = "learnsim fit --method adapter"
    compare = o.baseline_holdout is not None
    with stage("adapter: choosing search on held-out queries and documents"
               + (" and checking it against the strongest baseline" if compare else "")):
        checked = validate_search(texts, P, grades, learn, owner=owner, documents=documents, encoder_vectors=X,
                                  fraction=o.pairs_validation_fraction,
                                  random_state=o.random_state, stacklevel=3, compare=compare, analysis=o.analysis,
                                  language=lexical_language(o.language))
    check = None
    if checked is None and compare:
        # nothing to check the adapter on: the judged queries choose the baseline it ends as
        from ..baseline import baseline_of_judgements

        baselines, check = baseline_of_judgements(
            texts, P, grades, owner=owner, reason="too few queries to hold two out and learn from two",
            documents=documents, encoder_vectors=X, analysis=o.analysis, language=lexical_language(o.language),
            stacklevel=3)
        report = check.report
        summary.update(strongest_baseline=check.baseline, baseline_scores=check.scores)
    elif checked is None:
        from ..baseline import SearchBaselines, search_documents

        baselines = SearchBaselines(texts, search_documents(P, grades, len(texts), documents), encoder_vectors=X,
                                    analysis=o.analysis, language=lexical_language(o.language))
        alpha, w, lam = 1.0, 0.0, 0.0
        report = unchecked("too few queries to hold two out and learn from two",
                           baseline_name="the strongest of BM25, the tf.idf cosine and the encoder's cosine",
                           owner=owner, stacklevel=3)
    else:
        split, baselines, check = checked
        report = check.report if compare else None
        alpha, w, lam = _rules()[1][check.chosen] if check.chosen is not None else (1.0, 0.0, 0.0)
        summary.update(held_out=split.describe(), held_out_queries=check.report.n_units, search_split=split.by,
                       strongest_baseline=check.baseline, baseline_scores=check.scores)
    counts = state.get("counts")
    if check is not None and check.fell_back:
        from .._search_checks import baseline_model

        model = baseline_model(o, check, [texts[i] for i in baselines.documents], baselines)
        summary.update(model=check.baseline, search_rule=model.scoring, baseline_gain=_report(report),
                       triplets=counts["triplets"] if counts else None)
        return Fitted(summary, dict(model.parts), vec_seconds, time.perf_counter() - start, check=check)
    with stage("adapter: learning the query map from every query"):
        learn(np.ones(len(P), dtype=bool), baselines, quiet=True, alphas=(alpha,))
    adapter = state[alpha]
    counts = state["counts"]
    search = SearchRule(input_weight=float(w), n_queries=0 if check is None else check.report.n_units,
                        baseline_gain=report, lexical_weight=float(lam) if lam else None, lexical_kind="bm25")
    parts = {"vectorizer": encoder, "metric": adapter, "search": search}
    if lam:
        parts["lexical"] = baselines.lexical.vectorizer
    summary.update(model="learned", triplets=counts["triplets"],
                   negatives={k: counts[k] for k in ("hard", "random", "labelled", "encoder")},
                   graded_triplets=counts["graded"],
                   search_anchors=counts["anchors"], baseline_gain=_report(report), alpha=float(alpha),
                   search_input_weight=float(w), search_bm25_weight=float(lam), n_iter=adapter.n_iter_,
                   converged=adapter.converged_)
    return Fitted(summary, parts, vec_seconds, time.perf_counter() - start, check=check)


#: How deep among a query's best documents by the encoder its hard negatives are drawn.
_ENCODER_NEGATIVE_DEPTH = 50


def _encoder_negatives(P, grades, X, documents, D, seed):
    """(anchor, relevant, negative) triplets, one per relevant pair: the negative drawn among the
    anchor's ``_ENCODER_NEGATIVE_DEPTH`` best documents by the encoder's cosine, none relevant."""
    rng = np.random.default_rng(seed + 1)
    positive = grades > 0
    relevant = {}
    for a, b in P[positive].tolist():
        relevant.setdefault(a, set()).add(b)
    anchors = np.array(sorted(relevant), dtype=np.int64)
    if anchors.size == 0:
        return np.zeros((0, 3), dtype=np.int64)
    depth = min(_ENCODER_NEGATIVE_DEPTH + 1, documents.size)
    rows = []
    for start in range(0, anchors.size, 512):
        chunk = anchors[start:start + 512]
        S = _unit(X[chunk]) @ D.T
        top = np.argpartition(-S, depth - 1, axis=1)[:, :depth]
        for a, found in zip(chunk.tolist(), top):
            pool = [int(d) for d in documents[found] if d != a and d not in relevant[a]]
            if pool:
                rows.extend((a, b, pool[rng.integers(len(pool))]) for b in sorted(relevant[a]))
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


def _unit(M):
    M = np.asarray(M, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]
