"""Explaining an index's hits from its query plan, without loading the pipeline.

``learnsim search --index --explain`` explained each hit with :meth:`Pipeline.explain`, and
loading the pipeline imports scikit-learn: about a second, most of the command's time (a search
alone needs only the plan, :mod:`learnsim.index._query`). For the cosine models (FILM, mixed or
not) and minimum cluster distortion, the plan holds everything an explanation reads: the
vectoriser (tokenizer, weighting, idf, the LSI basis, the words) and the model's map (FILM's L
and input weight; MCD's factor, weights and complement weight). :class:`PlanPipeline` offers
those under the names :meth:`Pipeline.explain` reads, and the explanation is computed by that
same code, so it is the pipeline's own (the word vectors the plan gives were checked against the
pipeline's when the index was built).

The term-weight models (whose document weights need the learned model) and the relative
comparison metrics are explained by the pipeline, as before.
"""
from __future__ import annotations

import numpy as np

__all__ = ["PlanPipeline", "plan_pipeline"]


class _Scorer:
    """What an explanation reads of :class:`learnsim.scorer.Scorer`."""

    def __init__(self, kind, name, input_weight):
        self.kind, self.name, self.input_weight = kind, name, input_weight


class _Vectorizer:
    """What an explanation reads of :class:`learnsim.text.TextVectorizer`: the words, the LSI
    basis (or None) and the word vectors (``transform`` once ``components_`` is None, as
    :func:`learnsim.pipeline._word_vectors` sets it on a copy)."""

    def __init__(self, plan):
        self._plan = plan
        self.terms_ = np.asarray(plan.terms, dtype=object)
        self.components_ = plan.arrays.get("components")

    def get_feature_names_out(self):
        return self.terms_.copy()

    def transform(self, texts):
        import scipy.sparse as sp

        if self.components_ is not None:
            raise NotImplementedError("the plan gives the word vectors, not their LSI projection")
        indptr, indices, data = [0], [], []
        for text in texts:
            ids, vals = self._plan.word_vector(text)
            indices.append(ids)
            data.append(vals)
            indptr.append(indptr[-1] + ids.size)
        return sp.csr_matrix((np.concatenate(data) if data else np.zeros(0),
                              np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64),
                              np.asarray(indptr, dtype=np.int64)), shape=(len(texts), self._plan.n_terms))


class _FilmMap:
    """FILM's map L (``components_``), which explanations read."""

    def __init__(self, L):
        self.components_ = L
        self.n_features_in_ = L.shape[1]


class _McdForm:
    """MCD's factored metric M = beta I + V diag(w - beta) V^T over its active features."""

    def __init__(self, factor, weights, beta, active_position):
        self.factor_, self.weights_, self.residual_weight_ = factor, weights, float(beta)
        position = np.asarray(active_position, dtype=np.int64)
        active = np.flatnonzero(position >= 0)
        self.active_features_ = np.empty(active.size, dtype=np.int64)
        self.active_features_[position[active]] = active       # in the factor's row order
        self.n_features_in_ = position.shape[0]


class PlanPipeline:
    """The parts of a pipeline that :meth:`learnsim.pipeline.Pipeline.explain` reads
    (``scorer``, ``vectorizer``, ``metric``, ``lexical_vectorizer``), from an index's query plan
    (the clustering of an index reads MCD's ``metric`` here too).

    ``vectorizer``: the plan's vectoriser (the model's inputs), or, for a FILM mixing its input
    cosine over the searched collection's words with its learned cosine (issue 32), the plan's
    ``learned`` one (the training vocabulary the map is over), the plan's own being then the
    collection's (``lexical_vectorizer``, which the index's statistics are those of)."""

    def __init__(self, plan, kind, scoring, metric, input_weight=None, learned=None):
        self.scorer = _Scorer(kind, scoring, input_weight)
        self.metric = metric
        if learned is None:
            self.vectorizer, self._lexical = _Vectorizer(plan), None
        else:
            self.vectorizer, self._lexical = _Vectorizer(learned), _Vectorizer(plan)
        self.uses_collection_vocabulary = self._lexical is not None

    def lexical_vectorizer(self, statistics):
        """The collection's vectoriser (the plan's, built with the index's statistics), or None
        where the model's inputs are the plan's words."""
        return self._lexical

    def explain(self, query, document, n_top=10, statistics=None):
        from ..pipeline import Pipeline

        # Pipeline.explain's own code (the checks, the split), on this object's parts
        return Pipeline.explain(self, query, document, n_top=n_top, statistics=statistics)


def plan_pipeline(plan, kind, scoring, statistics=()):
    """A :class:`PlanPipeline` of the plan, or None where the pipeline must explain: a model the
    plan does not describe fully enough (term weights, a relative metric).
    ``statistics``: the names of the index's collection statistics."""
    model = plan.meta.get("model", {})
    op = model.get("op")
    components = plan.arrays.get("components")
    inputs = plan.n_terms if components is None else components.shape[0]
    if components is not None and components.shape[1] != plan.n_terms:
        return None
    collection = "vocabulary" in statistics      # the plan's words are the searched collection's
    if kind == "cosine" and op == "cosine":
        L = plan.arrays["map"]
        w = model.get("input_weight")
        learned = getattr(plan, "learned", None) if "learned" in model else None
        if learned is not None:
            if components is None and learned.arrays.get("components") is None and L.shape[1] == learned.n_terms:
                return PlanPipeline(plan, kind, scoring, _FilmMap(L), input_weight=w, learned=learned)
            return None
        if (not collection and L.shape[1] == inputs) or (collection and w == 1.0):
            # (the input cosine alone over the collection's words: the map is never applied)
            return PlanPipeline(plan, kind, scoring, _FilmMap(L), input_weight=w)
        return None
    if kind == "distance" and op == "mcd" and not collection and plan.arrays["active_position"].shape[0] == inputs:
        a = plan.arrays
        return PlanPipeline(plan, kind, scoring,
                            _McdForm(a["factor"], a["weights"], model["beta"], a["active_position"]))
    return None
