"""Grouping an index's collection under its learned metric.

K-means (paper 000, Figure 4) runs on rows in which the learned similarity is Euclidean. Those
rows are built from the rows the index stores for its search (read from the segments, their
checksums checked), not from the texts: vectorising the collection again cost more than the
clustering itself. For a minimum-cluster-distortion metric M = beta I + V diag(w - beta) V^T
they are [sqrt(beta) x, sqrt(w - beta) V^T x]: the sparse input plus r dense columns, whose
squared distances are exactly the learned ones (the dense n x n_features transform x -> M^(1/2) x
gives the same distances, but a 3,000-document collection with a 50,000-word vocabulary made
it a 1.2 GB array on which K-means took many minutes).
"""
from __future__ import annotations

import numpy as np

__all__ = ["cluster_documents"]

# agglomerative clustering holds all the pairwise distances
MAX_AGGLOMERATIVE = 20_000
# the dense factor built when the learned metric has directions weighted below the others (see
# _factor_rows): min(documents, features)^2 entries at most, MCD's own bound on a dense array
MAX_FACTOR_ENTRIES = 400_000_000


def _live_rows(index):
    """(ids, Rows) of the live documents in sequence order, as the segments hold them (each
    segment's checksums and values checked before use, as a search checks them)."""
    from ._integrity import read_retrying
    from ._segments import IndexFormatError, merged_rows

    def read():
        live = index._live
        seqs = index._seqs[live]
        docs = index.store.documents(seqs)
        missing = [int(s) for s in seqs if int(s) not in docs]
        if missing:
            raise IndexFormatError(f"{index.path}: a segment lists document {missing[0]}, which the document "
                                   f"store does not hold (edited or damaged)")
        return [docs[int(s)][0] for s in seqs], merged_rows(index.segments, live)

    return read_retrying(index, read)


def _dense_weights(metric):
    """Weights c of the dense part of an index's document rows in their inner product under the
    metric, or None where it is the plain one. The rows of MCD with a complement weight
    (:meth:`learnsim.scorer.Scorer.document_rows`) are (S = sqrt(beta) x, P = V^T x), with
    x^T M y = S_x . S_y + sum_k (w_k - beta) P_xk P_yk; every other distance model stores its
    embedding itself."""
    beta = getattr(metric, "residual_weight_", None)
    if beta is None or not hasattr(metric, "factor_") or beta == 0.0:
        return None
    return np.asarray(metric.weights_, dtype=np.float64) - float(beta)


def _psd_factor(A):
    """F (n x rank) with F F^T = A for a symmetric positive semi-definite A: a pivoted Cholesky
    factor, an order of magnitude cheaper than an eigendecomposition."""
    from scipy.linalg import lapack

    c, piv, rank, info = lapack.dpstrf(np.asarray(A, dtype=np.float64), lower=1)
    if info < 0:
        raise ValueError(f"the pivoted Cholesky factorisation refused its input (LAPACK info {info})")
    L = np.tril(c)[:, :max(int(rank), 1)]
    F = np.empty_like(L)
    F[piv - 1] = L          # A = P L L^T P^T, P moving row j of L to row piv[j] - 1
    return F


def _factor_rows(S, D, c, metric):
    """Rows F with F_i . F_j = S_i . S_j + sum_k c_k D_ik D_jk when some c_k < 0 (M weights a
    learned direction below the others): no sparse rows carry a negative part, so a dense
    factor, of the n x n Gram matrix or, with fewer features than documents, of the metric
    itself (S = sqrt(beta) X and D = X_active V, so F = S R with R R^T = I + V (C / beta) V^T)."""
    import scipy.sparse as sp

    n, d = S.shape
    m = min(n, d)
    if m * m > MAX_FACTOR_ENTRIES:
        raise MemoryError(f"K-means under this metric (it weights some learned directions below the others) "
                          f"needs a dense {m} x {m} factor; cluster fewer documents, or use a model with "
                          f"fewer features (LSI) or complement_weight=0")
    if n <= d:
        G = S @ S.T
        K = (G.toarray() if sp.issparse(G) else np.asarray(G)) + (D * c) @ D.T
        return _psd_factor(K)
    beta = float(metric.residual_weight_)
    V = np.zeros((d, len(c)))
    V[np.asarray(metric.active_features_)] = metric.factor_
    R = _psd_factor(np.eye(d) + (V * (c / beta)) @ V.T)
    return np.asarray(S @ R)


def _embedding(index, rows):
    """Rows in which the learned similarity is Euclidean: FILM's (mixed) cosine rows, the term
    weights normalised (their cosine), the learned map of the distance models."""
    import scipy.sparse as sp

    sparse = None if rows.sparse is None else sp.csr_matrix(rows.sparse)
    dense = rows.dense
    if index.kind == "distance":
        # MCD's arrays from the query plan where it has them (as the searches read them), else
        # from the pipeline
        metric = index._model_parts().metric
        c = _dense_weights(metric)
        if c is not None:
            if sparse is None or dense is None or dense.shape[1] != c.size:
                from ._segments import IndexFormatError

                raise IndexFormatError(f"{index.path}: the stored rows do not match the model's metric")
            if np.any(c < 0):
                return _factor_rows(sparse, np.asarray(dense, dtype=np.float64), c, metric)
            dense = np.asarray(dense, dtype=np.float64) * np.sqrt(c)
    parts = [p for p in (sparse, dense) if p is not None]
    if not parts:
        raise ValueError(f"{index.path}: the index stores no rows to cluster")
    if len(parts) > 1:
        E = sp.hstack([sparse, sp.csr_matrix(dense)], format="csr")
    else:
        E = parts[0]
    if index.kind == "distance":
        return E
    from sklearn.preprocessing import normalize

    return normalize(E)


def _distances(E):
    """Pairwise Euclidean distances of the rows of E (n x n), from their Gram matrix: for wide
    sparse rows, far smaller than the rows made dense."""
    G = E @ E.T
    D = G.toarray() if hasattr(G, "toarray") else np.array(G, dtype=np.float64)
    sq = np.diag(D).copy()
    # in place: one n x n array (20,000 documents: 3.2 GB)
    D *= -2.0
    D += sq[:, None]
    D += sq[None, :]
    np.maximum(D, 0.0, out=D)
    np.sqrt(D, out=D)
    np.fill_diagonal(D, 0.0)
    return D


def _distinct_rows(E):
    """How many distinct rows E has (sparse or dense): the most clusters K-means can make."""
    if hasattr(E, "tocsr"):
        E = E.tocsr()
        if not E.has_sorted_indices:
            E = E.copy()        # the rows may be read from a segment's read-only files
            E.sort_indices()
        return len({(E.indices[a:b].tobytes(), E.data[a:b].tobytes()) for a, b in zip(E.indptr[:-1], E.indptr[1:])})
    return int(np.unique(np.ascontiguousarray(E), axis=0).shape[0])


def _warn_placeless(ids, E):
    """One warning naming the documents whose row in the model's space is zero (no term of the
    model's vocabulary): K-means and the agglomeration put them in some cluster all the same,
    which their words do not decide (as search and match --corpus say of such documents)."""
    from .._utils.callers import warn_outside
    from ..text import find_empty_rows

    empty = find_empty_rows(E)
    if empty.size:
        shown = ", ".join(repr(ids[i]) for i in empty[:3].tolist()) + (", ..." if empty.size > 3 else "")
        warn_outside(f"{empty.size} document(s) of the index have no term of the model's vocabulary ({shown}): "
                     "their clusters are not decided by their words", UserWarning)


def cluster_documents(index, k, distance_threshold, random_state):
    if (k is None) == (distance_threshold is None):
        raise ValueError("give either k (K-means) or distance_threshold (agglomerative clustering)")
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"k must be a positive integer; got {k!r}")
    if distance_threshold is not None:
        # a number, as k is an integer: True was 1.0 and "0.5" 0.5 (float() reads both)
        if isinstance(distance_threshold, (bool, np.bool_)) or not isinstance(distance_threshold, (int, float, np.number)):
            raise ValueError(f"distance_threshold must be a positive number; got {distance_threshold!r}")
        t = float(distance_threshold)
        if not np.isfinite(t) or t <= 0:
            raise ValueError(f"distance_threshold must be a positive number; got {distance_threshold!r}")
    if random_state is not None and not isinstance(random_state, np.random.RandomState) and (
            isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer))
            or not 0 <= random_state < 2 ** 32):
        # scikit-learn's own message names none of learnsim's options
        raise ValueError(f"the seed (random_state) must be a whole number from 0 to 2**32 - 1; got {random_state!r}")
    ids, rows = _live_rows(index)
    if not ids:
        return {}
    if len(ids) == 1:
        return {ids[0]: 0}      # one document is one cluster (scikit-learn wants two to cluster)
    if k is not None:
        if k > len(ids):
            raise ValueError(f"k={k} is more than the {len(ids)} documents of the index")
        from sklearn.cluster import KMeans

        E = _embedding(index, rows)
        _warn_placeless(ids, E)
        distinct = _distinct_rows(E)
        if k > distinct:
            # scikit-learn warned "Number of distinct clusters (29) found smaller than n_clusters
            # (32). Possibly due to duplicate points in X." and answered fewer clusters than asked
            raise ValueError(f"k={k} is more than the {distinct} distinct texts of the index (its {len(ids)} documents "
                             "hold copies, or texts of the same words, which K-means cannot part); give a k of at "
                             f"most {distinct}")
        # one k-means++ start (scikit-learn's default, n_init="auto"), not the best of 10: ten
        # starts cost ten times one, and K-means on these rows is compared with scikit-learn's
        labels = KMeans(n_clusters=int(k), n_init="auto", random_state=random_state).fit_predict(E)
    else:
        if len(ids) > MAX_AGGLOMERATIVE:
            raise ValueError(f"agglomerative clustering holds every pairwise distance: at most "
                             f"{MAX_AGGLOMERATIVE} documents (the index has {len(ids)}); use k")
        from sklearn.cluster import AgglomerativeClustering

        E = _embedding(index, rows)
        _warn_placeless(ids, E)
        n, width = E.shape
        if hasattr(E, "toarray") and width > n:
            # wide sparse rows (a vocabulary): the n x n distances instead of n x width dense rows
            model = AgglomerativeClustering(n_clusters=None, distance_threshold=t, linkage="average",
                                            metric="precomputed")
            labels = model.fit_predict(_distances(E))
        else:
            dense = E.toarray() if hasattr(E, "toarray") else E
            labels = AgglomerativeClustering(n_clusters=None, distance_threshold=t,
                                             linkage="average").fit_predict(dense)
    return {i: int(l) for i, l in zip(ids, labels)}
