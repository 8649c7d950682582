"""The interface every approximate nearest-neighbour backend shares, and the checks done once for all.

:class:`ApproximateIndex` validates the vectors, ids and ``k`` given to ``fit``, ``add``,
``remove`` and ``search``, keeps the live ids, orders and pads the results and writes the saved
directory; a backend (:mod:`._faiss`, :mod:`._usearch`) only talks to its native library.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import numbers
import os
import secrets
import shutil
from abc import abstractmethod
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_matrix, check_n_features
from .._utils.files import save_npy, sha256_file
from ..exceptions import ANNFormatError, UnknownIdError  # noqa: F401  (defined there; importable here as in 0.1)
from ..persistence import ModelFormatError
from ..search import METRICS, SIMILARITY_METRICS, NeighborIndex, dense_queries_fast

FORMAT_NAME = "learnsim-ann"
FORMAT_VERSION = 1
META_FILE = "meta.json"
IDS_FILE = "ids.npy"
#: The extra that installs every ANN backend, named in the ImportError of a missing package.
EXTRA_HINT = "pip install learnsim[ann]"
# Rows converted to float32 at a time: the float64 working copy of a block stays small.
_CONVERT_ROWS = 1 << 15
# A query id of -1 in ``exclude_ids`` excludes nothing (ids are never negative).
_NO_ID = -1
_INT64_MAX = np.iinfo(np.int64).max


def import_backend_package(module, backend, pip_name):
    """Import the package of an ANN backend, or raise an ImportError that names the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"the {backend!r} ANN backend needs the {pip_name} package, which does not "
                          f"import here ({exc}); install the ann extra: {EXTRA_HINT} "
                          f"(or pip install {pip_name})") from exc


def check_int_param(value, name, *, minimum=1, allow_none=False):
    """``value`` as an int >= ``minimum`` (None passes where ``allow_none``), else a ValueError."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}"
                         + (" or None" if allow_none else "") + f"; got {value!r}")
    return int(value)


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _prepare_vectors(X, normalise):
    """``X`` (validated, finite) as C-contiguous float32, rows L2-normalised when ``normalise``.

    Norms are taken in float64 after dividing each row by its largest magnitude, so rows of
    huge values neither overflow (an inf norm would turn the row into zeros, silently) nor lose
    their direction; the float64 copy is made one block of rows at a time.
    """
    if not normalise and X.dtype == np.float32:
        return np.ascontiguousarray(X)
    out = np.empty(X.shape, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, X.shape[0], _CONVERT_ROWS):
            block = X[start:start + _CONVERT_ROWS].astype(np.float64)
            if normalise:
                scale = np.abs(block).max(axis=1)
                nonzero = scale > 0
                block[nonzero] /= scale[nonzero, None]
                norms = np.sqrt(np.einsum("ij,ij->i", block, block))
                block[nonzero] /= norms[nonzero, None]
            out[start:start + _CONVERT_ROWS] = block
    if not np.isfinite(out).all():
        raise ValueError("X holds values too large in magnitude for float32, the type ANN backends "
                         "store; rescale the vectors (e.g. normalise the rows)")
    return out


def _first(values, limit=10):
    values = [int(v) for v in np.asarray(values).ravel()[:limit + 1]]
    return str(values[:limit])[:-1] + (", ...]" if len(values) > limit else "]")


def check_ids(ids, n, *, name="ids", unique=True):
    """``ids`` as a 1-D int64 array of ``n`` non-negative ids (any length if ``n`` is None), unique
    where ``unique``.

    Raises
    ------
    TypeError
        If the ids are not integers (floats, booleans, strings).
    ValueError
        If the shape is wrong, an id is negative (-1 marks a missing result) or beyond int64, or
        an id repeats (where ``unique``).
    """
    if sp.issparse(ids):
        raise TypeError(f"{name} must be a 1-D array of integers, not a scipy.sparse matrix")
    arr = np.asarray(ids)
    if arr.ndim == 0 and n is None:
        arr = arr.reshape(1)
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        raise ValueError(f"{name} must be a 1-D array of "
                         + (f"{n} ids, one per row of X" if n is not None else "ids")
                         + f"; got shape {arr.shape}")
    if arr.size == 0 and arr.dtype == np.float64:
        arr = arr.astype(np.int64)  # np.asarray([]) is float64; an empty list holds no bad value
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers (int64 ids); got dtype {arr.dtype}")
    if arr.size:
        if arr.dtype.kind == "u" and arr.max() >= 2**63:
            raise ValueError(f"{name} contains {int(arr.max())}, beyond the int64 range of ids")
        if arr.dtype.kind == "i" and arr.min() < 0:
            raise ValueError(f"{name} contains {int(arr.min())}; ids must be >= 0 (search marks a "
                             "missing result with id -1)")
    arr = arr.astype(np.int64, copy=False)
    if unique and arr.size > 1:
        ordered = np.sort(arr)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        if repeated.size:
            raise ValueError(f"{name} must be unique; {_first(np.unique(repeated))} repeat")
    return arr


class ApproximateIndex(NeighborIndex):
    """Approximate nearest-neighbour search over dense vectors, with ids, additions and removals.

    A backend subclass (:class:`~learnsim.ann.FaissIndex`, :class:`~learnsim.ann.USearchIndex`)
    implements the native part; this class checks every input once for all of them. Vectors
    are stored as float32. For ``"cosine"`` the rows are L2-normalised first and searched by
    inner product, so an all-zero row has similarity 0 with everything, as in
    :mod:`learnsim.search`.

    Scores follow :mod:`learnsim.search`: similarities (``"inner_product"``, ``"cosine"``)
    descend along a row, distances (``"sqeuclidean"``, ``"euclidean"``) ascend, and equal scores
    are ordered by ascending id. Where fewer than ``k`` live items are found, a row is padded
    with id -1 and score -inf (similarities) or +inf (distances). Unlike :class:`ExactIndex`,
    ``search`` returns item *ids* (the ones given to ``fit``/``add``, by default 0, 1, ...),
    not row positions, and a ``k`` beyond the number of items is padded, not refused.

    Attributes
    ----------
    ids_ : ndarray of int64
        The live ids, in the order they were added (read-only).
    n_items_ : int
        Number of live items.
    n_features_in_ : int

    Examples
    --------
    Any backend made by :func:`~learnsim.ann.make_ann` (skipped where the ``ann`` extra may be
    missing):

    >>> import numpy as np
    >>> from learnsim.ann import make_ann
    >>> X = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]])
    >>> ann = make_ann("faiss-hnsw", metric="sqeuclidean", M=8).fit(X)   # doctest: +SKIP
    >>> ann.search(X[2:3], 2)[0]                                         # doctest: +SKIP
    array([[2, 3]])
    >>> ann.add(np.array([[0.0, 1.0, 0.0]])).ids_                       # doctest: +SKIP
    array([0, 1, 2, 3, 4, 5])
    >>> ann.remove([2]), ann.n_items_                                   # doctest: +SKIP
    (1, 5)
    >>> ann.search(X[2:3], 1)[0]                                         # doctest: +SKIP
    array([[5]])
    """

    #: Names of the parameters that :meth:`set_search_params` may change (per backend).
    _SEARCH_PARAM_NAMES = ("threads",)
    #: File name of the native index inside a saved directory.
    _NATIVE_FILE = "index.bin"

    # ------------------------------------------------------------------ backend hooks

    @property
    @abstractmethod
    def backend_name(self):
        """The name of this backend in :data:`learnsim.ann.ANN_BACKENDS`."""

    @abstractmethod
    def _check_params(self):
        """Validate the parameters; return the dict saved in the meta (JSON values)."""

    @abstractmethod
    def _import(self):
        """Import the native package (ImportError naming the extra when it is missing)."""

    @abstractmethod
    def _build(self, X, ids):
        """Build the native index from prepared float32 ``X`` and checked ``ids``."""

    @abstractmethod
    def _add_vectors(self, X, ids):
        """Add prepared rows with new, checked ids."""

    @abstractmethod
    def _remove_ids(self, ids):
        """Remove live ``ids`` (checked, unique) natively or by tombstones."""

    @abstractmethod
    def _search_native(self, Q, k):
        """(ids, scores) of shape (n_queries, k), ``1 <= k <= n_items_``: ids int64 with -1 where
        nothing was found, scores float32 in learnsim's convention for ``"inner_product"`` or
        ``"sqeuclidean"`` (cosine data is normalised, euclidean is squared), any order.
        A backend returns ``k`` live results per row whenever ``n_items_ >= k``."""

    def _apply_search_params(self):
        """Pass the current search parameters to the native index (after set_search_params)."""

    def _extra_array_names(self):
        """Names of the arrays saved next to ``ids`` (``name.npy``), e.g. ``("tombstones",)``."""
        return ()

    def _extra_arrays(self):
        """Arrays saved next to ``ids`` (name -> int64 array), e.g. tombstones."""
        return {}

    @property
    def _stored_dtype(self):
        """The numpy name of the type the native index stores vectors in."""
        return "float32"

    def _fitted_meta(self):
        """Fitted values saved in the meta, e.g. the number of IVF lists chosen at fit."""
        return {}

    @abstractmethod
    def _write_native(self, path):
        """Write the native index file."""

    @abstractmethod
    def _read_native(self, path, *, mmap, meta, arrays):
        """Read the native index file and check it against the meta and ``arrays`` (ids and
        the extra arrays, already checked); raise :class:`ANNFormatError` on a mismatch."""

    # ------------------------------------------------------------------ NeighborIndex hooks

    def _fit(self, corpus):
        # fit() is overridden (it takes ids); kept so the NeighborIndex interface is complete
        self.fit(corpus)

    def _search(self, queries, k, exclude_self):
        return self.search(queries, k, exclude_self=exclude_self)

    # ------------------------------------------------------------------ checks

    def _check_metric(self):
        if not isinstance(self.metric, str) or self.metric not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(map(repr, METRICS))}; got {self.metric!r}")
        return self.metric

    @property
    def _native_metric(self):
        """The metric the native index scores: ``"inner_product"`` or ``"sqeuclidean"``."""
        return "inner_product" if self.metric in SIMILARITY_METRICS else "sqeuclidean"

    def _vectors(self, X, name, *, check_features=True):
        if check_features:
            fast = dense_queries_fast(X, self.n_features_in_)
            if fast is not None:
                # already a finite float ndarray of the right width: skip check_matrix's conversions
                return _prepare_vectors(fast, normalise=self.metric == "cosine")
        if sp.issparse(X):
            raise TypeError(f"{name} is a scipy.sparse matrix, but ANN backends need dense vectors: "
                            "reduce it first (e.g. a learnsim metric's or TruncatedSVD's transform) "
                            "or densify it with .toarray() if it is small")
        X = check_matrix(X, name=name, accept_sparse=False)
        if check_features:
            check_n_features(X, self.n_features_in_, name=name, owner=f"this {type(self).__name__}")
        return _prepare_vectors(X, normalise=self.metric == "cosine")

    def _check_writable(self, action):
        check_is_fitted(self, "n_items_")
        if getattr(self, "_read_only", False):
            raise ValueError(f"cannot {action}: this index was loaded with mmap=True and is read-only; "
                             "load it without mmap to modify it")

    def _set_ids(self, ids):
        self.ids_ = ids
        self.ids_.flags.writeable = False
        self.n_items_ = int(ids.shape[0])

    # ------------------------------------------------------------------ public API

    def fit(self, X, ids=None):
        """Index the dense vectors ``X`` (n, d) under ``ids`` (default 0..n-1). Returns self.

        Parameters
        ----------
        X : array-like of shape (n_items, n_features)
            Dense vectors (sparse input is refused: reduce or densify it first).
        ids : array-like of int, shape (n_items,), optional
            Unique non-negative ids, returned by :meth:`search`.

        Returns
        -------
        self
        """
        self._check_metric()
        self._check_params()
        self._import()
        X = self._vectors(X, "X", check_features=False)
        ids = np.arange(X.shape[0], dtype=np.int64) if ids is None else check_ids(ids, X.shape[0]).copy()
        for name in ("ids_", "n_items_", "n_features_in_", "_read_only"):
            self.__dict__.pop(name, None)
        self._build(X, ids)
        self.n_features_in_ = X.shape[1]
        self._next_id = int(ids.max()) + 1
        self._set_ids(ids)
        return self

    def add(self, X, ids=None):
        """Add vectors to the fitted index. Returns self.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
        ids : array-like of int, shape (n_new,), optional
            New unique ids; by default they continue after the largest id so far (removed
            ones included). An id already live in the index is a ValueError.

        Returns
        -------
        self
        """
        self._check_writable("add vectors")
        X = self._vectors(X, "X")
        if ids is None:
            ids = np.arange(self._next_id, self._next_id + X.shape[0], dtype=np.int64)
        else:
            ids = check_ids(ids, X.shape[0]).copy()
            clash = ids[np.isin(ids, self.ids_)]
            if clash.size:
                raise ValueError(f"ids {_first(clash)} are already in the index; remove them first "
                                 "or choose new ids")
        self._add_vectors(X, ids)
        self._next_id = max(self._next_id, int(ids.max()) + 1)
        self._set_ids(np.concatenate([self.ids_, ids]))
        return self

    def remove(self, ids, *, missing_ok=False):
        """Remove items by id; a removed id is never returned by :meth:`search` again.

        Parameters
        ----------
        ids : int or array-like of int
        missing_ok : bool
            Ignore ids that are not in the index instead of raising.

        Returns
        -------
        int
            The number of items removed.

        Raises
        ------
        UnknownIdError
            (a KeyError and a ValueError) if an id is not in the index and not ``missing_ok``.
        """
        self._check_writable("remove items")
        ids = np.unique(check_ids(ids, None, unique=False))
        present = np.isin(ids, self.ids_)
        if not present.all() and not missing_ok:
            raise UnknownIdError(f"ids {_first(ids[~present])} are not in the index "
                                 "(pass missing_ok=True to ignore them)")
        ids = ids[present]
        if ids.size:
            self._remove_ids(ids)
            self._set_ids(self.ids_[~np.isin(self.ids_, ids)])
        return int(ids.size)

    def search(self, queries, k, *, exclude_self=False, exclude_ids=None):
        """Ids and scores of the ``k`` best live items for each query, best first.

        Parameters
        ----------
        queries : array-like of shape (n_queries, n_features)
        k : int
            Number of results per query (>= 1). Rows with fewer live items are padded.
        exclude_self : bool
            Query ``i`` is the ``i``-th live item (``ids_[i]``), as in :class:`NeighborIndex`:
            leave its own id out of its results. Needs one query per item.
        exclude_ids : array-like of int, shape (n_queries,), optional
            The id to leave out of each query's results (-1: none), e.g. the query's own id.

        Returns
        -------
        ids : ndarray of shape (n_queries, k), int64
            Item ids; -1 pads a row where fewer than ``k`` items were found.
        scores : ndarray of shape (n_queries, k), float32
            Similarities (descending, -inf padding) or distances (ascending, +inf padding).
        """
        if "n_items_" not in self.__dict__:
            check_is_fitted(self, "n_items_")
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            raise TypeError(f"k must be a positive integer; got {k!r}")
        if k <= 0:
            raise ValueError(f"k must be a positive integer; got {k}")
        k = int(k)
        Q = self._vectors(queries, "queries")
        exclude = self._exclusions(Q.shape[0], exclude_self, exclude_ids)
        k_native = min(k + (exclude is not None), self.n_items_)
        pad = -np.inf if self.larger_is_better else np.inf
        if k_native == 0:
            return (np.full((Q.shape[0], k), -1, dtype=np.int64),
                    np.full((Q.shape[0], k), pad, dtype=np.float32))
        ids, scores = self._search_native(Q, k_native)
        ids = np.asarray(ids, dtype=np.int64)
        scores = np.asarray(scores, dtype=np.float32)
        # one reduction answers the common case (nothing missing, nothing to exclude)
        any_missing = exclude is not None or ids.min() < 0
        if any_missing:
            missing = ids < 0
            if exclude is not None:
                missing |= ids == exclude[:, None]
            ids[missing] = -1
            scores[missing] = pad
        if self.metric == "euclidean":
            np.sqrt(scores, out=scores)
        # best first, equal scores by ascending id, padding last. Backends mostly return rows
        # sorted already: where every row is full and strictly ordered, that order is the only
        # one the rule allows, and the sort (most of the cost of a small search) is skipped.
        if any_missing:
            in_order = False
        elif self.larger_is_better:
            in_order = (scores[:, 1:] < scores[:, :-1]).all()
        else:
            in_order = (scores[:, 1:] > scores[:, :-1]).all()
        if not in_order:
            key = -scores if self.larger_is_better else scores
            tie_key = np.where(missing, _INT64_MAX, ids) if any_missing else ids
            order = np.lexsort((tie_key, key), axis=-1)[:, :k]
            ids = np.take_along_axis(ids, order, axis=1)
            scores = np.take_along_axis(scores, order, axis=1)
        elif ids.shape[1] > k:
            ids, scores = ids[:, :k], scores[:, :k]
        if ids.shape[1] < k:
            short = k - ids.shape[1]
            ids = np.hstack([ids, np.full((ids.shape[0], short), -1, dtype=np.int64)])
            scores = np.hstack([scores, np.full((ids.shape[0], short), pad, dtype=np.float32)])
        return ids, scores

    def _exclusions(self, n_queries, exclude_self, exclude_ids):
        if exclude_self and exclude_ids is not None:
            raise ValueError("pass exclude_self=True or exclude_ids, not both")
        if exclude_self:
            if n_queries != self.n_items_:
                raise ValueError("exclude_self=True means query i is live item i (ids_[i]), so there "
                                 f"must be one query per item; got {n_queries} queries for "
                                 f"{self.n_items_} items (use exclude_ids to name each query's id)")
            return self.ids_
        if exclude_ids is None:
            return None
        arr = np.asarray(exclude_ids)
        if arr.ndim != 1 or arr.shape[0] != n_queries:
            raise ValueError(f"exclude_ids must be a 1-D array of {n_queries} ids, one per query; "
                             f"got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"exclude_ids must hold integers; got dtype {arr.dtype}")
        if arr.size and arr.dtype.kind == "u" and arr.max() >= 2**63:
            raise ValueError(f"exclude_ids contains {int(arr.max())}, beyond the int64 range of ids")
        if arr.size and arr.min() < _NO_ID:
            raise ValueError(f"exclude_ids contains {int(arr.min())}; use ids >= 0, or -1 for none")
        return arr.astype(np.int64)

    def get_search_params(self):
        """The parameters that change search (recall against speed) without a rebuild.

        Returns
        -------
        dict
        """
        return {name: getattr(self, name) for name in self._SEARCH_PARAM_NAMES}

    def set_search_params(self, **params):
        """Change search parameters (e.g. ``ef_search``, ``nprobe``) without rebuilding.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a name that is not a search parameter of this backend, or a bad value (the
            parameters are then left as they were).
        """
        unknown = sorted(set(params) - set(self._SEARCH_PARAM_NAMES))
        if unknown:
            raise ValueError(f"{unknown} are not search parameters of {self.backend_name}; they are "
                             f"{list(self._SEARCH_PARAM_NAMES)}")
        before = self.get_search_params()
        for name, value in params.items():
            setattr(self, name, value)
        try:
            self._check_params()
        except ValueError:
            for name, value in before.items():
                setattr(self, name, value)
            raise
        if hasattr(self, "n_items_"):
            self._apply_search_params()
        return self

    # ------------------------------------------------------------------ saving

    def save(self, directory):
        """Save the fitted index to ``directory`` (created; a previous save there is replaced).

        The directory holds the native index file, ``ids.npy`` (live ids in insertion order),
        any backend arrays (e.g. ``tombstones.npy``) and ``meta.json``: format name and version,
        backend, metric, parameters, ``n``, ``d``, dtype and the sha256 of every other file.
        It is written next to its destination and moved into place, so an interrupted save
        leaves the previous one intact.

        Parameters
        ----------
        directory : str or Path

        Returns
        -------
        Path

        Raises
        ------
        FileExistsError
            If ``directory`` exists and is neither empty nor a saved ANN index.
        """
        check_is_fitted(self, "n_items_")
        params = self._check_params()
        directory = Path(directory)
        parent = directory.parent
        if not parent.is_dir():
            raise FileNotFoundError(f"cannot save to {directory}: directory {parent} does not exist")
        if directory.exists() and not directory.is_dir():
            raise FileExistsError(f"cannot save to {directory}: it exists and is not a directory")
        if directory.is_dir() and any(directory.iterdir()) and not (directory / META_FILE).is_file():
            raise FileExistsError(f"cannot save to {directory}: it is not empty and holds no saved ANN "
                                  f"index ({META_FILE}); refusing to overwrite it")
        token = secrets.token_hex(8)
        tmp = parent / f".{directory.name}.{token}.tmp"
        tmp.mkdir()
        try:
            self._write_native(tmp / self._NATIVE_FILE)
            arrays = {"ids": self.ids_, **self._extra_arrays()}
            for name, arr in arrays.items():
                save_npy(tmp / f"{name}.npy", np.ascontiguousarray(arr, dtype=np.int64))
            files = sorted([self._NATIVE_FILE] + [f"{name}.npy" for name in arrays])
            for name in files:
                _fsync(tmp / name)
            from .. import __version__
            meta = {
                "format": FORMAT_NAME, "format_version": FORMAT_VERSION,
                "learnsim_version": __version__, "backend": self.backend_name, "metric": self.metric,
                "params": params, "fitted": self._fitted_meta(), "n": self.n_items_,
                "d": self.n_features_in_, "dtype": self._stored_dtype, "next_id": self._next_id,
                "native_file": self._NATIVE_FILE,
                "files": {name: sha256_file(tmp / name) for name in files},
            }
            with open(tmp / META_FILE, "w", encoding="utf-8") as handle:
                json.dump(meta, handle, indent=1, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            if directory.exists():
                old = parent / f".{directory.name}.{token}.old"
                os.replace(directory, old)
                os.replace(tmp, directory)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, directory)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return directory

    @classmethod
    def _restore(cls, estimator, directory, meta, arrays, *, mmap):
        """Finish :func:`learnsim.ann.load_ann`: ``estimator`` is unfitted, built from the meta's
        checked parameters; ``arrays`` are checked. The native part is read and checked here."""
        estimator._read_native(Path(directory) / meta["native_file"], mmap=mmap, meta=meta, arrays=arrays)
        estimator.n_features_in_ = meta["d"]
        estimator._next_id = meta["next_id"]
        estimator._set_ids(arrays["ids"])
        if mmap:
            estimator._read_only = True
        return estimator


@contextlib.contextmanager
def native_errors(what, path):
    """Turn what a native reader raises on a damaged file into an :class:`ANNFormatError`."""
    try:
        yield
    except (RuntimeError, ValueError, OSError, MemoryError, TypeError) as exc:
        if isinstance(exc, ANNFormatError):
            raise
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ANNFormatError(f"{path}: {what} could not read the native index ({message}); the file "
                             "is damaged or not an index of this backend") from None


__all__ = ["ApproximateIndex", "ANNFormatError", "UnknownIdError", "FORMAT_NAME", "FORMAT_VERSION",
           "check_ids", "check_int_param", "import_backend_package", "sha256_file", "native_errors",
           "META_FILE", "IDS_FILE"]
