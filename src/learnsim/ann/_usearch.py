"""usearch backend of :mod:`learnsim.ann`: an HNSW graph with native removal.

usearch is imported inside the functions that need it, so :mod:`learnsim.ann` imports without it.

References
----------
.. [1] A. Vardanian, "USearch: smaller & faster single-file similarity search engine",
   https://github.com/unum-cloud/usearch (2023).
.. [2] Y. A. Malkov and D. A. Yashunin, "Efficient and robust approximate nearest neighbor search
   using Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2018 (arXiv:1603.09320).
"""
from __future__ import annotations

import numpy as np

from ._base import ANNFormatError, ApproximateIndex, check_int_param, import_backend_package, native_errors

__all__ = ["USearchIndex"]

# The vector types offered: f16 halves the memory at a small cost in score precision.
_DTYPES = {"f32": "float32", "f16": "float16"}


def _import_usearch():
    return import_backend_package("usearch.index", "usearch", "usearch")


class USearchIndex(ApproximateIndex):
    """Approximate nearest neighbours with usearch's HNSW graph [1]_ [2]_.

    Parameters
    ----------
    metric : {"inner_product", "cosine", "sqeuclidean", "euclidean"}
        Inner product (usearch ``"ip"``; ``"cosine"`` normalises the rows first) or squared L2
        (usearch ``"l2sq"``; ``"euclidean"`` takes its square root).
    connectivity : int
        Neighbours per node (HNSW's ``M``).
    expansion_add : int
        Candidate list length while inserting (``ef_construction``).
    expansion_search : int
        Candidate list length while searching (``ef``); a search parameter.
    dtype : {"f32", "f16"}
        How the vectors are stored.
    threads : int, optional
        Threads for usearch calls (None: usearch's default, every core).

    Attributes
    ----------
    ids_, n_items_, n_features_in_
        See :class:`~learnsim.ann.ApproximateIndex`.

    Notes
    -----
    Ids are usearch keys, and removal is usearch's own. A row that comes back with fewer
    than ``k`` items although the index holds ``k`` is searched again exactly (usearch's
    brute force), so ``k`` live results are always returned when they exist. A loaded
    ``mmap=True`` index is a read-only usearch *view* of the file.

    Examples
    --------
    Skipped where usearch (the ``ann`` extra) may be missing:

    >>> import numpy as np
    >>> from learnsim.ann import USearchIndex
    >>> X = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]])
    >>> ann = USearchIndex(metric="cosine").fit(X)           # doctest: +SKIP
    >>> ann.search(X[2:3], 2)[0]                             # doctest: +SKIP
    array([[2, 3]])
    >>> ann.add(np.array([[0.0, 1.0, 0.05]])).ids_           # doctest: +SKIP
    array([0, 1, 2, 3, 4, 5])

    References
    ----------
    .. [1] A. Vardanian, "USearch", https://github.com/unum-cloud/usearch (2023).
    .. [2] Y. A. Malkov and D. A. Yashunin, "Efficient and robust approximate nearest neighbor
       search using Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2018.
    """

    _NATIVE_FILE = "index.usearch"
    _SEARCH_PARAM_NAMES = ("expansion_search", "threads")

    def __init__(self, metric="inner_product", *, connectivity=32, expansion_add=200, expansion_search=128,
                 dtype="f32", threads=None):
        self.metric = metric
        self.connectivity = connectivity
        self.expansion_add = expansion_add
        self.expansion_search = expansion_search
        self.dtype = dtype
        self.threads = threads

    backend_name = "usearch"

    @classmethod
    def param_names(cls, kind=None):
        """The parameters besides ``metric`` (what :func:`make_ann` accepts)."""
        return ("connectivity", "expansion_add", "expansion_search", "dtype", "threads")

    def _check_params(self):
        if not isinstance(self.dtype, str) or self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(map(repr, _DTYPES))}; got {self.dtype!r}")
        return {"connectivity": check_int_param(self.connectivity, "connectivity", minimum=2),
                "expansion_add": check_int_param(self.expansion_add, "expansion_add"),
                "expansion_search": check_int_param(self.expansion_search, "expansion_search"),
                "dtype": self.dtype,
                "threads": check_int_param(self.threads, "threads", allow_none=True)}

    def _import(self):
        return _import_usearch()

    @property
    def _stored_dtype(self):
        return _DTYPES[self.dtype]

    @property
    def _threads(self):
        return 0 if self.threads is None else self.threads  # usearch reads 0 as "every core"

    def _usearch_metric(self, usearch):
        return usearch.MetricKind.IP if self._native_metric == "inner_product" else usearch.MetricKind.L2sq

    def _build(self, X, ids):
        usearch = self._import()
        index = usearch.Index(ndim=X.shape[1], metric=self._usearch_metric(usearch), dtype=self.dtype,
                              connectivity=self.connectivity, expansion_add=self.expansion_add,
                              expansion_search=self.expansion_search)
        index.add(ids.astype(np.uint64), X, threads=self._threads)
        self._index = index

    def _add_vectors(self, X, ids):
        self._index.add(ids.astype(np.uint64), X, threads=self._threads)

    def _remove_ids(self, ids):
        self._index.remove(ids.astype(np.uint64), threads=self._threads)

    def _search_native(self, Q, k):
        def run(queries, exact):
            found = self._index.search(queries, k, threads=self._threads, exact=exact)
            n = queries.shape[0]
            counts = getattr(found, "counts", None)
            keys = np.asarray(found.keys)
            if keys.size == n * k and (counts is None or np.asarray(counts).min() == k):
                # every row full (the common case): no padding to build
                distances = np.asarray(found.distances, dtype=np.float32).reshape(n, k)
                return (keys.reshape(n, k).astype(np.int64),
                        1.0 - distances if self._native_metric == "inner_product" else distances.copy())
            # one query comes back as a 1-D Matches holding only what was found (no counts),
            # several as a 2-D BatchMatches with a count per row
            keys = np.asarray(found.keys).reshape(queries.shape[0], -1)[:, :k]
            distances = np.asarray(found.distances, dtype=np.float32).reshape(queries.shape[0], -1)[:, :k]
            counts = getattr(found, "counts", None)
            counts = np.array([keys.shape[1]]) if counts is None else np.asarray(counts).reshape(-1)
            width = keys.shape[1]
            valid = np.arange(width)[None, :] < counts[:, None]
            ids = np.full((queries.shape[0], k), -1, dtype=np.int64)
            scores = np.zeros((queries.shape[0], k), dtype=np.float32)
            ids[:, :width] = np.where(valid, keys.astype(np.int64), -1)
            # usearch's "ip" distance is 1 - <q, x>
            scores[:, :width] = 1.0 - distances if self._native_metric == "inner_product" else distances
            return ids, scores

        ids, scores = run(Q, exact=False)
        if ids.min() < 0:
            short = np.flatnonzero((ids < 0).any(axis=1))
            ids[short], scores[short] = run(Q[short], exact=True)
        if self._native_metric == "sqeuclidean":
            np.maximum(scores, 0.0, out=scores)
        return ids, scores

    def _apply_search_params(self):
        self._index.expansion_search = self.expansion_search

    # usearch's Index cannot be pickled (joblib, multiprocessing and dask need it): carry the
    # native index as the bytes usearch saves, and restore it from them
    def __getstate__(self):
        state = dict(super().__getstate__())  # may be self.__dict__ itself: never modify it
        if "_index" in state:
            state["_index"] = bytes(self._index.save())
        return state

    def __setstate__(self, state):
        native = state.get("_index")
        if isinstance(native, (bytes, bytearray)):
            index = _import_usearch().Index.restore(native)
            if index is None:
                raise ValueError("the pickled usearch index could not be restored")
            index.expansion_add = state["expansion_add"]
            index.expansion_search = state["expansion_search"]
            state = {**state, "_index": index}
        super().__setstate__(state)

    def _write_native(self, path):
        self._index.save(str(path))

    def _read_native(self, path, *, mmap, meta, arrays):
        usearch = self._import()
        with native_errors("usearch", path):
            index = usearch.Index.restore(str(path), view=bool(mmap))
        if index is None:
            raise ANNFormatError(f"{path}: usearch could not read the native index; the file is damaged "
                                 "or not a usearch index")
        n, d, ids = meta["n"], meta["d"], arrays["ids"]

        def refuse(problem):
            raise ANNFormatError(f"{path}: {problem}; the directory is damaged or was edited")

        if index.ndim != d:
            refuse(f"the native index has {index.ndim} dimensions but meta.json says d={d}")
        if index.metric_kind != self._usearch_metric(usearch):
            refuse(f"the native index's metric {index.metric_kind} does not match meta.json's metric "
                   f"{self.metric!r}")
        if str(index.dtype).rsplit(".", 1)[-1].lower() != self.dtype:
            refuse(f"the native index stores {index.dtype} but meta.json says dtype {self.dtype!r}")
        if index.connectivity != self.connectivity:
            refuse(f"the native graph has connectivity {index.connectivity} but meta.json says "
                   f"{self.connectivity}")
        if len(index) != n:
            refuse(f"the native index holds {len(index)} vectors but meta.json says n={n}")
        native_ids = np.sort(np.asarray(index.keys[0:n]).astype(np.int64)) if n else np.empty(0, np.int64)
        if not np.array_equal(native_ids, np.sort(ids)):
            refuse("the ids of the native index differ from ids.npy")
        index.expansion_add = self.expansion_add
        self._index = index
        self._apply_search_params()
