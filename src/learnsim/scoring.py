"""The weight of a learned cosine mixed with the input cosine, chosen for search.

:class:`SearchRule` holds the weight w of ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` (see
:mod:`learnsim.hybrid`) that ranks a collection best: chosen on held-out duplicates by recall@1.
``learnsim fit --method film --pairs`` stores one in the model file (part "search") and
``learnsim search`` ranks with it. It differs from the weight of
:class:`learnsim.matching.ThresholdMatcher`, chosen by the ROC AUC of pairs: on the Quora sample
the pair rule picks w = 0.5-0.65, while ranking 19,000 questions is best at w = 0.8-0.9.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SearchRule"]

#: Entries of one (queries x collection) block of similarities.
_BLOCK_ENTRIES = 2 ** 22


class SearchRule:
    """The input-cosine weight w that FILM's search uses, chosen for search on held-out
    duplicate pairs: each held-out duplicate's text searches the whole fitted collection, and w
    (a grid from 0, FILM's cosine alone, to 1, the input cosine alone) maximises the share whose
    best hit is a duplicate (recall@1; ties to the smaller w). Saved in the model file as "search".

    The duplicate rule (ThresholdMatcher) chooses its own w by the ROC AUC of pairs; the two
    differ: deciding a pair and ranking a whole collection are different tasks.
    """

    def __init__(self, input_weight=None, weight_grid=(), weight_scores=(), n_queries=0):
        self.input_weight = input_weight
        self.weight_grid = tuple(float(w) for w in weight_grid)
        self.weight_scores = np.asarray(weight_scores, dtype=np.float64)
        self.n_queries = int(n_queries)

    @classmethod
    def select(cls, metric, X, queries, components, grid=tuple(np.round(np.linspace(0.0, 1.0, 21), 2))):
        """Choose w on ``queries`` (rows of X) whose duplicates are the rows sharing their
        ``components`` label (>= 0)."""
        import scipy.sparse as sp

        Xu = _unit_rows(X)
        E = _unit_rows(np.asarray(metric.transform(X), dtype=np.float64))
        hits = np.zeros(len(grid))
        step = max(1, _BLOCK_ENTRIES // max(X.shape[0], 1))
        for start in range(0, len(queries), step):
            q = queries[start:start + step]
            Ci = Xu[q] @ Xu.T
            Ci = Ci.toarray() if sp.issparse(Ci) else np.asarray(Ci)
            Cl = E[q] @ E.T
            rows = np.arange(len(q))
            for g, w in enumerate(grid):
                S = w * Ci + (1.0 - w) * Cl
                S[rows, q] = -np.inf
                best = S.argmax(axis=1)
                hits[g] += np.sum(components[best] == components[q])
        scores = hits / max(len(queries), 1)
        return cls(float(grid[int(np.argmax(scores))]), grid, scores, len(queries))

    def _get_state(self):
        return ({"input_weight": self.input_weight, "weight_grid": list(self.weight_grid),
                 "n_queries": self.n_queries}, {"weight_scores": self.weight_scores})

    @classmethod
    def _from_state(cls, meta, arrays):
        from .hybrid import check_input_weight

        if not isinstance(meta, dict) or not isinstance(arrays, dict) or "weight_scores" not in arrays:
            raise ValueError("SearchRule state must be (meta, {'weight_scores': ...})")
        w = check_input_weight(meta.get("input_weight"), "SearchRule state: input_weight")
        return cls(w, meta.get("weight_grid", ()), arrays["weight_scores"], meta.get("n_queries", 0))


def _unit_rows(M):
    import scipy.sparse as sp

    if sp.issparse(M):
        from sklearn.preprocessing import normalize

        return normalize(sp.csr_matrix(M, dtype=np.float64), norm="l2")
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]
