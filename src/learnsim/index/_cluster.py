"""Grouping an index's collection under its learned metric."""
from __future__ import annotations

import numpy as np

__all__ = ["cluster_documents"]

# agglomerative clustering holds all the pairwise distances
MAX_AGGLOMERATIVE = 20_000


def _embedding(index, texts):
    """Rows in which the learned similarity is Euclidean: FILM's (mixed) cosine rows, the term
    weights normalised (their cosine), the learned map of the distance models."""
    import scipy.sparse as sp

    p = index.pipeline
    X = p.vectorize(texts)
    if index.kind == "distance":
        E = p.metric.transform(X)
        return sp.csr_matrix(E) if sp.issparse(E) else np.asarray(E, dtype=np.float64)
    rows = p.scorer.document_rows(X, index.statistics or None)
    parts = []
    if rows.sparse is not None:
        parts.append(sp.csr_matrix(rows.sparse))
    if rows.dense is not None:
        parts.append(sp.csr_matrix(rows.dense) if rows.sparse is not None else np.asarray(rows.dense))
    E = sp.hstack(parts, format="csr") if len(parts) > 1 else parts[0]
    from sklearn.preprocessing import normalize

    return normalize(E)


def cluster_documents(index, k, distance_threshold, random_state):
    if (k is None) == (distance_threshold is None):
        raise ValueError("give either k (K-means) or distance_threshold (agglomerative clustering)")
    ids, texts = [], []
    for batch in index.store.live_rows():
        ids.extend(r[1] for r in batch)
        texts.extend(r[2] for r in batch)
    if not texts:
        return {}
    E = _embedding(index, texts)
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer; got {k!r}")
        if k > len(texts):
            raise ValueError(f"k={k} is more than the {len(texts)} documents of the index")
        from sklearn.cluster import KMeans

        labels = KMeans(n_clusters=int(k), n_init=10, random_state=random_state).fit_predict(E)
    else:
        t = float(distance_threshold)
        if not np.isfinite(t) or t <= 0:
            raise ValueError(f"distance_threshold must be a positive number; got {distance_threshold!r}")
        if len(texts) > MAX_AGGLOMERATIVE:
            raise ValueError(f"agglomerative clustering holds every pairwise distance: at most "
                             f"{MAX_AGGLOMERATIVE} documents (the index has {len(texts)}); use k")
        from sklearn.cluster import AgglomerativeClustering

        dense = E.toarray() if hasattr(E, "toarray") else E
        labels = AgglomerativeClustering(n_clusters=None, distance_threshold=t, linkage="average").fit_predict(dense)
    return {i: int(l) for i, l in zip(ids, labels)}
