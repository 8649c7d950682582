"""The tf.idf cosine of term counts (raw tf x log N/df, L2-normalised rows): the lexical baseline
``learnsim evaluate`` reports beside BM25, what LinkLearn (paper 002) is measured against and
falls back to, and what every search fit is checked against (:mod:`learnsim.baseline`).

References
----------
.. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
   Research Report IDIAP-RR 05-21, 2005, sec. 2.1 (paper 002 in ../shared/papers).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .bm25 import TermWeightIndex

__all__ = ["CosineIndex", "document_lengths", "idf_from_counts", "tfidf_cosine_weights"]


def idf_from_counts(X):
    """idf_i = log(N / df_i) of the paper (sec. 2.1) for every column; 0 for absent terms.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.text import idf_from_counts
    >>> X = sp.csr_matrix(np.array([[2, 1, 0, 0], [0, 1, 3, 0]]))
    >>> np.round(idf_from_counts(X), 3).tolist()    # log(2 / 1), log(2 / 2), log(2 / 1), absent
    [0.693, 0.0, 0.693, 0.0]
    """
    X = X if sp.isspmatrix_csr(X) or isinstance(X, sp.csr_array) else sp.csr_matrix(X)
    n = X.shape[0]
    df = np.bincount(X.indices[X.data != 0], minlength=X.shape[1]).astype(np.float64)
    idf = np.zeros(X.shape[1])
    present = df > 0
    idf[present] = np.log(n / df[present])
    return idf


def document_lengths(X):
    """l_d: the number of term occurrences in each document (its row sum).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.text import document_lengths
    >>> X = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 3]]))
    >>> document_lengths(X).tolist()
    [3.0, 4.0]
    """
    return np.asarray(X.sum(axis=1)).ravel().astype(np.float64)


def tfidf_cosine_weights(X, idf=None):
    """L2-normalised tf.idf rows, tf x log(N / df) (:func:`idf_from_counts` of X unless ``idf`` is
    given): the baseline LinkLearn is measured against and falls back to (float64 CSR).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.text import tfidf_cosine_weights
    >>> X = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 3]]))
    >>> W = tfidf_cosine_weights(X)
    >>> W.shape, W.dtype
    ((2, 3), dtype('float64'))
    >>> np.round(W.toarray(), 2).tolist()    # the shared term has idf 0
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    X = X if sp.isspmatrix_csr(X) or isinstance(X, sp.csr_array) else sp.csr_matrix(X)
    idf = idf_from_counts(X) if idf is None else idf
    data = X.data.astype(np.float64) * idf[X.indices]
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    norms = np.sqrt(np.bincount(rows, weights=data * data, minlength=X.shape[0]))
    norms[norms == 0] = 1.0
    W = sp.csr_matrix((data / norms[rows], X.indices.copy(), X.indptr.copy()), shape=X.shape)
    W.eliminate_zeros()
    return W


class CosineIndex(TermWeightIndex):
    """A :class:`learnsim.bm25.TermWeightIndex` of L2-normalised tf.idf document rows that scores
    query counts by their tf.idf cosine (the query weighted by the corpus idf ``idf`` and
    normalised): what a LinkLearn that fell back to its baseline searches with.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.text import CosineIndex, idf_from_counts, tfidf_cosine_weights
    >>> X = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 3], [1, 0, 1]]))
    >>> idf = idf_from_counts(X)
    >>> index = CosineIndex(idf=idf).fit(tfidf_cosine_weights(X, idf))
    >>> ids, scores = index.search(sp.csr_matrix(np.array([[1, 0, 0]])), 1)
    >>> ids.tolist()
    [[0]]
    """

    def __init__(self, idf=None, dtype=np.float32):
        self.idf = idf
        self.dtype = dtype

    def fit(self, W, y=None):
        """Index ``W`` = :func:`tfidf_cosine_weights` of the corpus, whose idf is ``idf``."""
        idf = np.asarray(self.idf, dtype=np.float64) if self.idf is not None else None
        if idf is None or idf.ndim != 1 or idf.shape[0] != W.shape[1] or not np.all(np.isfinite(idf)):
            raise ValueError(f"CosineIndex: idf must be a finite array of one value per term ({W.shape[1]}); "
                             f"got {None if idf is None else idf.shape}")
        self.query_weights = "counts"     # the query's tf.idf, applied in _check_fitted_counts
        return super().fit(W)

    def _check_fitted_counts(self, X, name):
        X = super()._check_fitted_counts(X, name)
        if name == "Q":
            X = tfidf_cosine_weights(X, np.asarray(self.idf, dtype=np.float64))
        return X
