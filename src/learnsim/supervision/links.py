"""A directed link graph over the items as supervision: :class:`Links` and :func:`check_links`."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ._common import _check_n_items, _check_range, _index_array


def _lock_csr(A):
    for arr in (A.data, A.indices, A.indptr):
        arr.setflags(write=False)
    return A


class Links:
    """A directed graph over the items, e.g. hyperlinks between documents.

    Parameters
    ----------
    adjacency : scipy.sparse matrix or 2-D array, shape (n_items, n_items)
        Entry ``(i, j)`` nonzero means item ``i`` links to item ``j``; values are ignored.
        Self-links are dropped with a warning.

    Examples
    --------
    >>> from learnsim.supervision import Links
    >>> links = Links.from_edges([[0, 1], [1, 2], [2, 0], [3, 0]], n_items=4)
    >>> links
    Links(n_items=4, n_links=4)
    >>> links.out_links(0), links.in_links(0)
    (array([1]), array([2, 3]))
    >>> links.symmetric()
    Links(n_items=4, n_links=8)
    >>> Links([[0, 1], [0, 0]]).edges
    array([[0, 1]])
    """

    __slots__ = ("_adj", "_adj_in")

    def __init__(self, adjacency):
        if isinstance(adjacency, Links):
            self._adj, self._adj_in = adjacency._adj, adjacency._adj_in
            return
        if adjacency is None:
            raise ValueError("adjacency is None; expected a square sparse matrix")
        if not sp.issparse(adjacency):
            arr = np.asarray(adjacency)
            if arr.dtype.kind not in "biuf":
                raise ValueError(f"adjacency must be numeric; got dtype {arr.dtype}")
            if arr.ndim != 2:
                raise ValueError(f"adjacency must be a square (n_items, n_items) matrix; got shape {arr.shape}")
            adjacency = sp.csr_matrix(arr)
        shape = adjacency.shape
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"adjacency must be square (n_items, n_items); got shape {shape}")
        if shape[0] == 0:
            raise ValueError("adjacency is empty (0 items)")
        A = sp.csr_matrix(adjacency, copy=True)
        if A.dtype.kind not in "biuf":
            raise ValueError(f"adjacency must be numeric; got dtype {A.dtype}")
        if A.dtype.kind == "f" and not np.isfinite(A.data).all():
            raise ValueError("adjacency contains NaN or infinite values")
        A.sum_duplicates()
        A.eliminate_zeros()
        A.data = np.ones(A.nnz, dtype=np.int8)
        self._adj, self._adj_in = self._finish(A)

    @staticmethod
    def _finish(A):
        diag = A.diagonal()
        n_self = int(np.count_nonzero(diag))
        if n_self:
            warnings.warn(f"dropped {n_self} self-link(s): an item linking to itself says nothing "
                          "about similarity", UserWarning, stacklevel=3)
            A = A.tolil()
            A.setdiag(0)
            A = A.tocsr()
            A.eliminate_zeros()
        if A.nnz == 0:
            raise ValueError("adjacency has no links between distinct items")
        A.sort_indices()
        A_in = A.tocsc()
        A_in.sort_indices()
        return _lock_csr(A), _lock_csr(A_in)

    @classmethod
    def from_edges(cls, edges, n_items):
        """Build from an ``(m, 2)`` array of ``(source, target)`` edges; duplicates count once."""
        n_items = _check_n_items(n_items)
        ind = _index_array(edges, 2, "edges", "edge")
        _check_range(ind, n_items, "edges")
        A = sp.csr_matrix((np.ones(len(ind), dtype=np.int8), (ind[:, 0], ind[:, 1])), shape=(n_items, n_items))
        A.sum_duplicates()
        A.data[:] = 1
        obj = cls.__new__(cls)
        obj._adj, obj._adj_in = cls._finish(A)
        return obj

    @property
    def adjacency(self):
        """Read-only CSR matrix of 0/1 (int8): row ``i`` holds the out-links of ``i``."""
        return self._adj

    @property
    def n_items(self):
        return int(self._adj.shape[0])

    @property
    def n_links(self):
        return int(self._adj.nnz)

    @property
    def out_degrees(self):
        return np.diff(self._adj.indptr)

    @property
    def in_degrees(self):
        return np.diff(self._adj_in.indptr)

    @property
    def edges(self):
        """``(n_links, 2)`` array of ``(source, target)``, sorted by source then target."""
        rows = np.repeat(np.arange(self.n_items), self.out_degrees)
        return np.column_stack([rows, self._adj.indices]).astype(np.int64)

    def _check_item(self, i):
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
            raise TypeError(f"item must be an int index; got {type(i).__name__}")
        if not 0 <= i < self.n_items:
            raise IndexError(f"item {i} out of range for {self.n_items} items")
        return int(i)

    def out_links(self, i):
        """Items that ``i`` links to (ascending)."""
        i = self._check_item(i)
        return np.array(self._adj.indices[self._adj.indptr[i]:self._adj.indptr[i + 1]], dtype=np.int64)

    def in_links(self, i):
        """Items that link to ``i`` (ascending)."""
        i = self._check_item(i)
        return np.array(self._adj_in.indices[self._adj_in.indptr[i]:self._adj_in.indptr[i + 1]], dtype=np.int64)

    def symmetric(self):
        """The undirected version: ``i`` and ``j`` are linked when either links to the other."""
        A = self._adj.maximum(self._adj.T).tocsr()
        obj = Links.__new__(Links)
        obj._adj, obj._adj_in = Links._finish(A)
        return obj

    def __repr__(self):
        return f"Links(n_items={self.n_items}, n_links={self.n_links})"


def check_links(links, n_items):
    """Validate links (a :class:`Links` or a square adjacency matrix) for ``n_items`` rows.

    Examples
    --------
    >>> from learnsim.supervision import check_links
    >>> check_links([[0, 1], [1, 0]], n_items=2)
    Links(n_items=2, n_links=2)
    """
    n_items = _check_n_items(n_items)
    links = links if isinstance(links, Links) else Links(links)
    if links.n_items != n_items:
        raise ValueError(f"links covers {links.n_items} items but X has {n_items} rows")
    return links
