"""faiss backends of :mod:`learnsim.ann`: exact flat search, HNSW graphs and IVF lists.

faiss is imported inside the functions that need it, so :mod:`learnsim.ann` imports without it
and a missing package is reported, naming the ``ann`` extra, only when a faiss index is used.

References
----------
.. [1] J. Johnson, M. Douze and H. Jégou, "Billion-scale similarity search with GPUs",
   IEEE Transactions on Big Data 7(3), 2019 (arXiv:1702.08734); https://github.com/facebookresearch/faiss
.. [2] Y. A. Malkov and D. A. Yashunin, "Efficient and robust approximate nearest neighbor search
   using Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2018 (arXiv:1603.09320).
.. [3] H. Jégou, M. Douze and C. Schmid, "Product quantization for nearest neighbor search",
   IEEE TPAMI 33(1), 2011 (the inverted file with a coarse quantizer that IVF indexes use).
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import threading

import numpy as np

from .._utils.validation import check_random_state
from ..search import top_k
from ._base import ANNFormatError, ApproximateIndex, check_int_param, import_backend_package, native_errors

__all__ = ["FaissIndex", "FAISS_KINDS"]

FAISS_KINDS = ("flat", "hnsw", "ivf")
# The parameters each kind takes (make_ann refuses the others) and those search may change.
_KIND_PARAMS = {"flat": ("threads",),
                "hnsw": ("M", "ef_construction", "ef_search", "threads"),
                "ivf": ("nlist", "nprobe", "random_state", "threads")}
_KIND_SEARCH_PARAMS = {"flat": ("threads",), "hnsw": ("ef_search", "threads"), "ivf": ("nprobe", "threads")}
# k-means of an IVF index trains on at most this many rows per list (more adds little but time) ...
_TRAIN_PER_LIST = 256
# ... and faiss warns below 39 training rows per centroid, so the default nlist stays under n/39.
_MIN_TRAIN_PER_LIST = 39
# Rows whose search came back short are searched again with this many times the effort.
_RETRY_FACTOR = 4


def _import_faiss(backend):
    # once imported, take it from sys.modules: the import machinery costs microseconds per
    # search, which one query at a time is a visible share of faiss's own time
    faiss = sys.modules.get("faiss")
    return faiss if faiss is not None else import_backend_package("faiss", backend, "faiss-cpu")


class _omp_threads:
    """Run faiss with ``threads`` OpenMP threads, then restore the process-wide setting.

    faiss has one thread count for the whole process, so this is not safe against another Python
    thread running faiss with a different count at the same time. A class rather than a
    generator context manager, and nothing set where the count is None or already right: one
    query at a time, the generator machinery and the two calls into faiss were a large share
    of the per-query overhead.
    """

    __slots__ = ("faiss", "threads", "before")

    def __init__(self, faiss, threads):
        self.faiss = faiss
        self.threads = threads
        self.before = None

    def __enter__(self):
        if self.threads is not None:
            before = self.faiss.omp_get_max_threads()
            if before != self.threads:
                self.faiss.omp_set_num_threads(self.threads)
                self.before = before
        return self

    def __exit__(self, *exc):
        if self.before is not None:
            self.faiss.omp_set_num_threads(self.before)
        return False


# faiss's bound on one vector read from a file is process-wide: set and restored under this lock
_VECTOR_LIMIT_LOCK = threading.Lock()


@contextlib.contextmanager
def _bounded_vectors(faiss, path):
    """Bound each vector faiss reads from ``path`` by the file's size while it reads: faiss
    allocates (and zeroes) the size a vector's header claims before reading it, up to 1 TiB by
    default, so an 8 KB file claiming 5 * 10^8 floats took 2 GB before its read failed. No
    vector a file holds is larger than the file (with IO_FLAG_MMAP too)."""
    get = getattr(faiss, "get_deserialization_vector_byte_limit", None)
    set_ = getattr(faiss, "set_deserialization_vector_byte_limit", None)
    if get is None or set_ is None:     # an older faiss: its own bound only
        yield
        return
    size = os.stat(path).st_size
    with _VECTOR_LIMIT_LOCK:
        before = get()
        set_(max(1, min(before, size)))
        try:
            yield
        finally:
            set_(before)


class FaissIndex(ApproximateIndex):
    """Approximate (or, for ``kind="flat"``, exact) nearest neighbours with faiss [1]_.

    Parameters
    ----------
    kind : {"hnsw", "ivf", "flat"}
        ``"hnsw"``: a Hierarchical Navigable Small World graph [2]_ (``IndexHNSWFlat``);
        faiss cannot remove from it, so removed items become tombstones that an id selector
        keeps out of the results, and the graph is rebuilt from the live vectors once the
        tombstones outnumber them. ``"ivf"``: an inverted file over k-means lists [3]_
        (``IndexIVFFlat``), removal is native. ``"flat"``: exact brute force
        (``IndexFlatIP``/``IndexFlatL2`` in an ``IndexIDMap``), removal is native.
    metric : {"inner_product", "cosine", "sqeuclidean", "euclidean"}
        ``"cosine"`` is inner product over L2-normalised rows, ``"euclidean"`` the square root
        of faiss's squared L2 distance.
    M : int
        HNSW: neighbours per node (the graph's degree; more is better recall, more memory).
    ef_construction : int
        HNSW: candidate list length while inserting.
    ef_search : int
        HNSW: candidate list length while searching (raised to ``k`` when smaller); a search
        parameter.
    nlist : int, optional
        IVF: number of lists; by default about ``4 * sqrt(n)`` at fit, at most ``n / 39``
        (faiss's k-means wants 39 training rows per list).
    nprobe : int
        IVF: lists visited per query; a search parameter.
    random_state : int, optional
        IVF: seed of the training sample (at most 256 rows per list).
    threads : int, optional
        OpenMP threads for faiss calls (None: faiss's default, usually every core). faiss has
        one process-wide setting, which is restored after each call.

    The parameters of the other kinds are ignored (and not saved); :func:`~learnsim.ann.make_ann`
    refuses them.

    Attributes
    ----------
    nlist_ : int
        IVF: the number of lists built.
    ids_, n_items_, n_features_in_
        See :class:`~learnsim.ann.ApproximateIndex`.

    Notes
    -----
    A row that comes back with fewer than ``k`` live items although the index holds ``k``
    (HNSW with many tombstones, IVF lists too small) is searched again with four times the
    ``ef_search``/``nprobe`` until it is full; HNSW falls back to exact search of the live
    vectors for a row that a full graph search still leaves short. A ``set_search_params``
    change applies to the next search.

    Examples
    --------
    Skipped where faiss (the ``ann`` extra) may be missing:

    >>> import numpy as np
    >>> from learnsim.ann import FaissIndex
    >>> X = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]])
    >>> ann = FaissIndex(kind="flat", metric="cosine").fit(X, ids=[10, 11, 12, 13, 14])  # doctest: +SKIP
    >>> ann.search(X[:1], 2)[0]                              # doctest: +SKIP
    array([[10, 11]])
    >>> ann.remove([10])                                     # doctest: +SKIP
    1
    >>> ann.search(X[:1], 2)[0]                              # doctest: +SKIP
    array([[11, 12]])
    >>> ann.search(X[:1], 6)[0]       # padded with -1 where fewer items are left  # doctest: +SKIP
    array([[11, 12, 13, 14, -1, -1]])

    References
    ----------
    .. [1] J. Johnson, M. Douze and H. Jégou, "Billion-scale similarity search with GPUs",
       IEEE Transactions on Big Data 7(3), 2019.
    .. [2] Y. A. Malkov and D. A. Yashunin, "Efficient and robust approximate nearest neighbor
       search using Hierarchical Navigable Small World graphs", IEEE TPAMI 42(4), 2018.
    .. [3] H. Jégou, M. Douze and C. Schmid, "Product quantization for nearest neighbor
       search", IEEE TPAMI 33(1), 2011.
    """

    _NATIVE_FILE = "index.faiss"

    def __init__(self, kind="hnsw", metric="inner_product", *, M=32, ef_construction=200, ef_search=128,
                 nlist=None, nprobe=16, random_state=0, threads=None):
        self.kind = kind
        self.metric = metric
        self.M = M
        self.ef_construction = ef_construction
        self.ef_search = ef_search
        self.nlist = nlist
        self.nprobe = nprobe
        self.random_state = random_state
        self.threads = threads

    @property
    def backend_name(self):
        return f"faiss-{self.kind}"

    @property
    def _SEARCH_PARAM_NAMES(self):
        return _KIND_SEARCH_PARAMS.get(self.kind, ("threads",))

    @classmethod
    def param_names(cls, kind):
        """The parameters ``kind`` takes besides ``metric`` (what :func:`make_ann` accepts)."""
        return _KIND_PARAMS[kind]

    def _check_params(self):
        if not isinstance(self.kind, str) or self.kind not in FAISS_KINDS:
            raise ValueError(f"kind must be one of {', '.join(map(repr, FAISS_KINDS))}; got {self.kind!r}")
        checked = {"threads": check_int_param(self.threads, "threads", allow_none=True)}
        if self.kind == "hnsw":
            checked["M"] = check_int_param(self.M, "M", minimum=2)
            checked["ef_construction"] = check_int_param(self.ef_construction, "ef_construction")
            checked["ef_search"] = check_int_param(self.ef_search, "ef_search")
        elif self.kind == "ivf":
            checked["nlist"] = check_int_param(self.nlist, "nlist", allow_none=True)
            checked["nprobe"] = check_int_param(self.nprobe, "nprobe")
            # an int (not a Generator) so that the saved meta says how the sample was drawn
            checked["random_state"] = check_int_param(self.random_state, "random_state", minimum=0,
                                                      allow_none=True)
        return checked

    def _import(self):
        return _import_faiss(self.backend_name)

    def _faiss_metric(self, faiss):
        return faiss.METRIC_INNER_PRODUCT if self._native_metric == "inner_product" else faiss.METRIC_L2

    def _new_hnsw(self, faiss, d):
        index = faiss.IndexHNSWFlat(d, self.M, self._faiss_metric(faiss))
        index.hnsw.efConstruction = self.ef_construction
        index.hnsw.efSearch = self.ef_search
        return index

    def _choose_nlist(self, n):
        if self.nlist is not None:
            if self.nlist > n:
                raise ValueError(f"nlist={self.nlist} is larger than the {n} rows of X: faiss k-means needs "
                                 "at least one training row per list; pass a smaller nlist (or None)")
            return self.nlist
        return int(max(1, min(round(4 * math.sqrt(n)), n // _MIN_TRAIN_PER_LIST)))

    # ------------------------------------------------------------------ building

    def _build(self, X, ids):
        faiss = self._import()
        n, d = X.shape
        metric = self._faiss_metric(faiss)
        self.__dict__.pop("nlist_", None)
        with _omp_threads(faiss, self.threads):
            if self.kind == "flat":
                index = faiss.IndexIDMap(faiss.IndexFlat(d, metric))
                index.add_with_ids(X, ids)
            elif self.kind == "hnsw":
                index = self._new_hnsw(faiss, d)
                index.add(X)
                # internal label i (insertion order) -> user id, -1 once removed (a tombstone)
                self._labels = ids.copy()
                self._n_dead = 0
            else:
                nlist = self._choose_nlist(n)
                index = faiss.IndexIVFFlat(faiss.IndexFlat(d, metric), d, nlist, metric)
                # faiss's k-means prints a WARNING to stderr (C++, no Python warning to filter)
                # below 39 training rows per list: the default nlist already keeps to n/39 where
                # n allows, and a tiny collection (3 rows, one list) or an nlist asked for is
                # trained as it is, so the line is noise on a library user's terminal
                index.cp.min_points_per_centroid = 1
                if n > _TRAIN_PER_LIST * nlist:
                    rng = check_random_state(self.random_state)
                    sample = np.sort(rng.choice(n, _TRAIN_PER_LIST * nlist, replace=False))
                    index.train(X[sample])
                else:
                    index.train(X)
                index.nprobe = self.nprobe
                index.add_with_ids(X, ids)
                self.nlist_ = nlist
        self._index = index
        self._bitmap = None

    def _add_vectors(self, X, ids):
        faiss = self._import()
        with _omp_threads(faiss, self.threads):
            if self.kind == "hnsw":
                self._index.add(X)
                self._labels = np.concatenate([self._labels, ids])
                self._bitmap = None
            else:
                self._index.add_with_ids(X, ids)

    def _remove_ids(self, ids):
        if self.kind != "hnsw":
            removed = self._index.remove_ids(np.ascontiguousarray(ids, dtype=np.int64))
            if removed != ids.size:
                raise RuntimeError(f"faiss removed {removed} of {ids.size} ids that the index holds; "
                                   "the index and its ids disagree")
            return
        positions = np.flatnonzero(np.isin(self._labels, ids))
        self._labels[positions] = -1
        self._n_dead += positions.size
        self._bitmap = None
        if self._n_dead > self._labels.size - self._n_dead:
            # the graph is mostly tombstones: searches would wade through dead nodes, so rebuild
            # it from the live vectors (amortised: at least as many removals as live items since)
            self._compact()

    def _compact(self):
        faiss = self._import()
        live = np.flatnonzero(self._labels >= 0)
        index = self._new_hnsw(faiss, self._index.d)
        with _omp_threads(faiss, self.threads):
            if live.size:
                index.add(self._index.reconstruct_batch(live))
        self._index = index
        self._labels = self._labels[live]
        self._n_dead = 0
        self._bitmap = None

    # ------------------------------------------------------------------ searching

    def _search_native(self, Q, k):
        faiss = self._import()
        with _omp_threads(faiss, self.threads):
            if self.kind == "flat":
                scores, ids = self._index.search(Q, k)
            elif self.kind == "hnsw":
                ids, scores = self._search_hnsw(faiss, Q, k)
            else:
                ids, scores = self._search_ivf(faiss, Q, k)
        if self._native_metric == "sqeuclidean":
            # ||q||^2 + ||x||^2 - 2 q.x can round below zero for (near) duplicates
            np.maximum(scores, 0.0, out=scores)
        return ids, scores

    def _search_hnsw(self, faiss, Q, k):
        selector = None
        if self._n_dead:
            if self._bitmap is None:
                self._bitmap = np.packbits(self._labels >= 0, bitorder="little")
            # the selector reads the bitmap through a raw pointer: self._bitmap keeps it alive
            selector = faiss.IDSelectorBitmap(self._labels.size, faiss.swig_ptr(self._bitmap))

        def run(queries, ef):
            if selector is None and self._index.hnsw.efSearch == ef:
                # what the parameters would say: building them costs more than a small search
                return self._index.search(queries, k)
            params = faiss.SearchParametersHNSW(efSearch=ef)
            if selector is not None:
                params.sel = selector
            return self._index.search(queries, k, params=params)

        ntotal = self._index.ntotal
        ef = max(self.ef_search, k)
        scores, labels = run(Q, ef)
        found_all = labels.min() >= 0
        short = np.flatnonzero((labels < 0).any(axis=1)) if not found_all else labels[:0, 0]
        while short.size and ef < ntotal:
            ef = min(ef * _RETRY_FACTOR, ntotal)
            scores[short], labels[short] = run(Q[short], ef)
            short = short[(labels[short] < 0).any(axis=1)]
        if short.size:
            # a part of the graph that no search reaches (rare): score the live vectors exactly
            live = np.flatnonzero(self._labels >= 0)
            rows, row_scores = top_k(Q[short], self._index.reconstruct_batch(live), k,
                                     metric=self._native_metric)
            labels[short] = live[rows]
            scores[short] = row_scores
        if found_all:
            return self._labels[labels], scores
        ids = np.where(labels >= 0, self._labels[np.maximum(labels, 0)], -1)
        return ids, scores

    def _search_ivf(self, faiss, Q, k):
        nlist = self.nlist_  # the native index's, checked at load; a Python int is cheaper to read
        nprobe = min(self.nprobe, nlist)
        if self._index.nprobe == nprobe:
            # what the parameters would say: building them costs more than a small search
            scores, ids = self._index.search(Q, k)
        else:
            scores, ids = self._index.search(Q, k, params=faiss.SearchParametersIVF(nprobe=nprobe))
        if ids.min() >= 0:
            return ids, scores
        short = np.flatnonzero((ids < 0).any(axis=1))
        # with every list probed the search is exhaustive, so the loop ends with full rows
        while short.size and nprobe < nlist:
            nprobe = min(nprobe * _RETRY_FACTOR, nlist)
            scores[short], ids[short] = self._index.search(
                Q[short], k, params=faiss.SearchParametersIVF(nprobe=nprobe))
            short = short[(ids[short] < 0).any(axis=1)]
        return ids, scores

    def _apply_search_params(self):
        # the native index keeps them too, so a saved .faiss file searches the same way elsewhere
        if self.kind == "hnsw":
            self._index.hnsw.efSearch = self.ef_search
        elif self.kind == "ivf":
            self._index.nprobe = self.nprobe

    # ------------------------------------------------------------------ saving and loading

    def _extra_array_names(self):
        return ("tombstones",) if self.kind == "hnsw" else ()

    def _extra_arrays(self):
        if self.kind == "hnsw":
            return {"tombstones": np.flatnonzero(self._labels < 0).astype(np.int64)}
        return {}

    def _fitted_meta(self):
        return {"nlist_": self.nlist_} if self.kind == "ivf" else {}

    def _write_native(self, path):
        faiss = self._import()
        faiss.write_index(self._index, str(path))

    def _read_native(self, path, *, mmap, meta, arrays):
        faiss = self._import()
        flags = 0
        if mmap:
            # IVF maps its inverted lists; flat and HNSW map their flat vector storage
            flags = faiss.IO_FLAG_MMAP if self.kind == "ivf" else getattr(faiss, "IO_FLAG_MMAP_IFC",
                                                                           faiss.IO_FLAG_MMAP)
        with native_errors("faiss", path), _bounded_vectors(faiss, path):
            # read_index returns the concrete class already; downcasting its result again would
            # make a second, non-owning wrapper while the owning one is freed
            index = faiss.read_index(str(path), flags)
        n, d, ids = meta["n"], meta["d"], arrays["ids"]

        def refuse(problem):
            raise ANNFormatError(f"{path}: {problem}; the directory is damaged or was edited")

        expected_type = {"flat": faiss.IndexIDMap, "hnsw": faiss.IndexHNSWFlat, "ivf": faiss.IndexIVFFlat}[self.kind]
        if not isinstance(index, expected_type):
            refuse(f"the native index is a {type(index).__name__}, not the {expected_type.__name__} "
                   f"of {self.backend_name}")
        if index.d != d:
            refuse(f"the native index has {index.d} dimensions but meta.json says d={d}")
        if index.metric_type != self._faiss_metric(faiss):
            refuse(f"the native index's metric does not match meta.json's metric {self.metric!r}")
        if self.kind == "flat":
            if not isinstance(faiss.downcast_index(index.index), faiss.IndexFlat):
                refuse("the native IndexIDMap does not wrap a flat index")
            if index.ntotal != n or not np.array_equal(faiss.vector_to_array(index.id_map), ids):
                refuse("the ids of the native index differ from ids.npy")
        elif self.kind == "hnsw":
            tombstones = arrays["tombstones"]
            if index.ntotal != n + tombstones.size:
                refuse(f"the native index holds {index.ntotal} vectors but ids.npy and tombstones.npy "
                       f"account for {n + tombstones.size}")
            if tombstones.size and (tombstones[0] < 0 or tombstones[-1] >= index.ntotal
                                    or np.any(np.diff(tombstones) <= 0)):
                refuse("tombstones.npy must hold increasing labels within the native index")
            if index.hnsw.nb_neighbors(1) != self.M:
                refuse(f"the native graph has M={index.hnsw.nb_neighbors(1)} but meta.json says M={self.M}")
            labels = np.full(index.ntotal, -1, dtype=np.int64)
            alive = np.ones(index.ntotal, dtype=bool)
            alive[tombstones] = False
            labels[alive] = ids
            self._labels = labels
            self._n_dead = int(tombstones.size)
            index.hnsw.efConstruction = self.ef_construction
        else:
            nlist = meta["fitted"].get("nlist_")
            if isinstance(nlist, bool) or not isinstance(nlist, int) or index.nlist != nlist:
                refuse(f"the native index has {index.nlist} lists but meta.json's fitted nlist_ is {nlist!r}")
            if not index.is_trained or index.ntotal != n:
                refuse(f"the native index holds {index.ntotal} vectors (trained: {index.is_trained}) but "
                       f"meta.json says n={n}")
            lists = index.invlists
            native_ids = [faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
                          for i in range(nlist) if lists.list_size(i)]
            native_ids = np.sort(np.concatenate(native_ids)) if native_ids else np.empty(0, np.int64)
            if not np.array_equal(native_ids, np.sort(ids)):
                refuse("the ids of the native index differ from ids.npy")
            self.nlist_ = nlist
        self._index = index
        self._bitmap = None
        self._apply_search_params()
