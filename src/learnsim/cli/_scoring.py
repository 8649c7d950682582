"""How ``search``, ``match`` and ``evaluate`` score documents with a fitted model.

Each kind of model is used with the similarity it was trained and validated for:

- FILM: the cosine in the learned space (the paper's matching rule, sec. 3.3), mixed with the
  cosine of the input, w cos(x, x') + (1 - w) cos(Lx, Lx'), with the w validated at fit time:
  for search on held-out duplicates (the SearchRule of a model fitted on pairs), else on
  held-out pairs (the ThresholdMatcher of older pairs models), else FILM's own ``input_weight_``
  chosen on held-out clusters (:mod:`learnsim.hybrid`, :mod:`learnsim.baseline`); w = 1 is the
  input cosine, the model's fallback. A Euclidean distance in FILM's space is not what FILM learns: it
  ranks the documents whose embedding is short (few or rare words) first.
- minimum cluster distortion and relative comparisons: the learned (Mahalanobis) distance.
- LinkLearn: the inner product of the learned term weights (paper 002, sec. 2.1).

Every scorer turns texts' vectors into rows and scores them either by an inner product (higher
is closer) or by the Euclidean distance (lower is closer), block by block, so that no
corpus x corpus matrix is ever held.
"""
from __future__ import annotations

import numpy as np

from . import _common

__all__ = ["Scorer", "scorer_for"]


class Scorer:
    """Rows for a fitted model and how to compare them.

    Attributes
    ----------
    column : {"similarity", "distance", "score"}
        What the value printed for a hit is.
    higher_is_closer : bool
    name : str
        A short name of the scoring (``--json``'s ``"scoring"``).
    description : str
        The scoring in words, for the human output.
    """

    def __init__(self, metric, matcher=None, search=None):
        from ..film import FILM
        from ..linklearn import LinkLearn
        from ..weighting import LearnedBM25

        self.metric = metric
        self.input_weight = None
        if isinstance(metric, (LinkLearn, LearnedBM25)):
            # both index the collection's learned weights in posting lists and score the queries'
            # counts there (LearnedBM25 raises them to its learned query exponent)
            self.kind = "term_weights"
            self.column, self.higher_is_closer = "score", True
            self.name = "learned term weights (inner product)"
            self.description = f"{type(metric).__name__}'s learned term weights (inner product; higher is closer)"
        elif isinstance(metric, FILM):
            self.kind = "cosine"
            self.column, self.higher_is_closer = "similarity", True
            # the weight chosen for search (pairs), else the duplicate rule's (older pairs models),
            # else FILM's own (chosen on held-out clusters; 0 in models from before the check)
            w, chosen = getattr(search, "input_weight", None), "for search on held-out duplicates"
            if w is None:
                w, chosen = getattr(matcher, "input_weight_", None), "on held-out pairs"
            if w is None:
                w, chosen = getattr(metric, "input_weight_", None), "on held-out clusters"
            if w == 1.0:
                self.input_weight = 1.0
                self.name = "input cosine"
                self.description = (f"the input cosine: FILM's learned part did not beat it {chosen}, so the "
                                    "model falls back to it")
            elif w is not None and w > 0.0:
                self.input_weight = float(w)
                self.name = f"mixed cosine (w={self.input_weight:g})"
                self.description = (f"{self.input_weight:g} x input cosine + {1 - self.input_weight:g} x cosine "
                                    f"in FILM's learned space (w chosen {chosen})")
            else:
                self.name = "cosine in the learned space"
                self.description = "cosine in FILM's learned space (higher is closer)"
        else:
            self.kind = "distance"
            self.column, self.higher_is_closer = "distance", False
            self.name = "learned distance"
            self.description = f"{type(metric).__name__}'s learned distance (lower is closer)"

    # ------------------------------------------------------------------------ rows
    def rows(self, X):
        """The rows to compare (see the class notes); None for the distance when its embedding
        is too large (then distances are computed by ``metric.pairwise_distances``)."""
        if self.kind == "term_weights":
            import scipy.sparse as sp

            return sp.csr_matrix(self.metric.transform(X), dtype=np.float64)
        if self.kind == "cosine":
            from ..hybrid import hybrid_rows

            E = np.asarray(self.metric.transform(X), dtype=np.float64)
            if self.input_weight is None:
                norms = np.sqrt(np.einsum("ij,ij->i", E, E))
                return E / np.where(norms > 0, norms, 1.0)[:, None]
            return hybrid_rows(X, E, self.input_weight)
        E = self.metric.transform(X)
        return E.astype(np.float64).tocsr() if hasattr(E, "tocsr") else np.asarray(E, dtype=np.float64)

    def prepare(self, corpus):
        """Fix the corpus (its vectors); returns self."""
        self.corpus = corpus
        self.corpus_rows = self.corpus_sq = None
        if self.kind == "distance":
            n, d = corpus.shape
            if getattr(self.metric, "residual_weight_", None) == 0.0 or n * d <= _common._MAX_EMBEDDING_ENTRIES:
                self.corpus_rows = self.rows(corpus)
        elif self.kind == "term_weights":
            self.index = self.metric.index(corpus)
        else:
            self.corpus_rows = self.rows(corpus)
        return self

    def block_rows(self):
        return _common._block_rows(self.corpus.shape[0])

    def scores(self, queries):
        """(n_queries, n_corpus) values: higher-is-closer similarities, or distances."""
        if self.kind == "term_weights":
            return self.index.score(queries)
        if self.kind == "distance":
            if self.corpus_rows is None:
                return self.metric.pairwise_distances(queries, self.corpus)
            E = self.rows(queries)
            if self.corpus_sq is None:
                self.corpus_sq = _sq_norms(self.corpus_rows)
            G = E @ self.corpus_rows.T
            G = G.toarray() if hasattr(G, "toarray") else np.asarray(G)
            D2 = _sq_norms(E)[:, None] + self.corpus_sq[None, :] - 2.0 * G
            return np.sqrt(np.maximum(D2, 0.0))
        S = self.rows(queries) @ self.corpus_rows.T
        return S.toarray() if hasattr(S, "toarray") else np.asarray(S)

    def closeness(self, queries):
        """Values where higher is closer (minus the distances)."""
        S = self.scores(queries)
        return S if self.higher_is_closer else -S

    def top_k(self, queries, k, exclude_self=False):
        """Indices and values of the k closest corpus documents of every query, block by block;
        ties go to the lower index."""
        from .._progress import progress

        n = queries.shape[0]
        idx = np.empty((n, k), dtype=np.int64)
        values = np.empty((n, k))
        step = self.block_rows()
        for start in progress(range(0, n, step), desc="search: scoring the corpus"):
            S = self.closeness(queries[start:start + step])
            if exclude_self:
                rows = np.arange(S.shape[0])
                S[rows, start + rows] = -np.inf
            order = np.argsort(-S, axis=1, kind="stable")[:, :k]
            idx[start:start + step] = order
            best = np.take_along_axis(S, order, axis=1)
            values[start:start + step] = best if self.higher_is_closer else -best
        return idx, values


def scorer_for(parts):
    """The Scorer of a loaded model (its dict of parts)."""
    return Scorer(parts["metric"], parts.get("matcher"), parts.get("search"))


def _sq_norms(M):
    if hasattr(M, "multiply"):
        return np.asarray(M.multiply(M).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", M, M)
