"""The backends by name: build one (:func:`make_ann`), list those installed, load a saved one."""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import numpy as np

from ._base import (FORMAT_NAME, FORMAT_VERSION, IDS_FILE, META_FILE, ANNFormatError, ApproximateIndex,
                    sha256_file)
from ._faiss import FaissIndex
from ._usearch import USearchIndex

__all__ = ["ANN_BACKENDS", "make_ann", "available_backends", "load_ann"]

#: Every ANN backend name, whether or not its package is installed here.
ANN_BACKENDS = ("faiss-flat", "faiss-hnsw", "faiss-ivf", "usearch")
# backend -> (class, fixed constructor arguments, the module whose import makes it available)
_SPECS = {"faiss-flat": (FaissIndex, {"kind": "flat"}, "faiss"),
          "faiss-hnsw": (FaissIndex, {"kind": "hnsw"}, "faiss"),
          "faiss-ivf": (FaissIndex, {"kind": "ivf"}, "faiss"),
          "usearch": (USearchIndex, {}, "usearch.index")}
#: Largest meta.json that :func:`load_ann` reads (bytes): a real one is well under a kilobyte.
MAX_META_BYTES = 1 << 20
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def _check_backend(backend):
    if not isinstance(backend, str) or backend not in ANN_BACKENDS:
        raise ValueError(f"unknown ANN backend {backend!r}; choose one of {', '.join(ANN_BACKENDS)}")
    return _SPECS[backend]


def make_ann(backend, metric="inner_product", **params):
    """An unfitted approximate nearest-neighbour index of the named backend.

    Parameters
    ----------
    backend : {"faiss-flat", "faiss-hnsw", "faiss-ivf", "usearch"}
    metric : {"inner_product", "cosine", "sqeuclidean", "euclidean"}
    **params
        The backend's parameters: ``threads`` for all; ``M``, ``ef_construction``, ``ef_search``
        (faiss-hnsw); ``nlist``, ``nprobe``, ``random_state`` (faiss-ivf); ``connectivity``,
        ``expansion_add``, ``expansion_search``, ``dtype`` (usearch). See
        :class:`~learnsim.ann.FaissIndex` and :class:`~learnsim.ann.USearchIndex`.

    Returns
    -------
    ApproximateIndex

    Raises
    ------
    ValueError
        For an unknown backend, metric or parameter, or a bad parameter value.
    ImportError
        If the backend's package is not installed (the message names ``learnsim[ann]``).

    Examples
    --------
    The lines that use a backend are skipped where the ``ann`` extra may be missing:

    >>> import numpy as np
    >>> from learnsim.ann import make_ann
    >>> X = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]])
    >>> ann = make_ann("faiss-flat", metric="cosine").fit(X, ids=[10, 11, 12, 13, 14])  # doctest: +SKIP
    >>> ids, scores = ann.search(X[:2], 2)                                              # doctest: +SKIP
    >>> ids                                                                             # doctest: +SKIP
    array([[10, 11],
           [11, 10]])
    >>> make_ann("faiss-flat", metric="cosine", ef_search=64)                           # doctest: +SKIP
    Traceback (most recent call last):
        ...
    ValueError: faiss-flat takes no parameter 'ef_search'; ...
    """
    cls, fixed, _ = _check_backend(backend)
    allowed = cls.param_names(fixed.get("kind"))
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(f"{backend} takes no parameter {', '.join(map(repr, unknown))}; its parameters "
                         f"are metric, {', '.join(allowed)}")
    index = cls(metric=metric, **fixed, **params)
    index._check_metric()
    index._check_params()
    index._import()
    return index


def available_backends():
    """The names in :data:`ANN_BACKENDS` whose package imports here.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from learnsim.ann import ANN_BACKENDS, available_backends
    >>> set(available_backends()) <= set(ANN_BACKENDS)
    True
    >>> available_backends()            # with the ann extra installed  # doctest: +SKIP
    ('faiss-flat', 'faiss-hnsw', 'faiss-ivf', 'usearch')
    """
    found = []
    for name in ANN_BACKENDS:
        try:
            importlib.import_module(_SPECS[name][2])
        except ImportError:
            continue
        found.append(name)
    return tuple(found)


def _meta_int(meta, key, where, minimum):
    value = meta[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ANNFormatError(f"{where}: {key} must be an integer >= {minimum}; got {value!r}")
    return value


def _read_meta(directory):
    path = directory / META_FILE
    if not path.is_file():
        raise ANNFormatError(f"{directory} holds no {META_FILE}: it is not a saved learnsim ANN index, "
                             "or the save was damaged")
    if path.stat().st_size > MAX_META_BYTES:
        raise ANNFormatError(f"{path} is {path.stat().st_size} bytes, larger than any {META_FILE} an "
                             f"index writes (limit {MAX_META_BYTES}); it is refused unread")
    try:
        meta = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ANNFormatError(f"{path} is not valid UTF-8 JSON: {exc}") from None
    if not isinstance(meta, dict):
        raise ANNFormatError(f"{path} must hold a JSON object")
    if meta.get("format") != FORMAT_NAME:
        raise ANNFormatError(f"{path}: format is {meta.get('format')!r}, expected {FORMAT_NAME!r}")
    version = meta.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ANNFormatError(f"{path}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ANNFormatError(f"{path} was written in format version {version} (by learnsim "
                             f"{meta.get('learnsim_version', '?')}); this learnsim reads up to version "
                             f"{FORMAT_VERSION}: upgrade learnsim to load it")
    missing = sorted({"backend", "metric", "params", "fitted", "n", "d", "dtype", "next_id",
                      "native_file", "files"} - set(meta))
    if missing:
        raise ANNFormatError(f"{path} lacks the entries {missing}")
    if not isinstance(meta["backend"], str) or meta["backend"] not in ANN_BACKENDS:
        raise ANNFormatError(f"{path}: unknown backend {meta['backend']!r}; this learnsim knows "
                             f"{', '.join(ANN_BACKENDS)}")
    for key in ("params", "fitted", "files"):
        if not isinstance(meta[key], dict):
            raise ANNFormatError(f"{path}: {key} must be a JSON object; got {meta[key]!r}")
    _meta_int(meta, "n", path, 0)
    _meta_int(meta, "d", path, 1)
    _meta_int(meta, "next_id", path, 0)
    for name, digest in meta["files"].items():
        if not isinstance(digest, str) or not _SHA256_RE.match(digest):
            raise ANNFormatError(f"{path}: the checksum of {name!r} must be a sha256 hex digest; got {digest!r}")
    return meta


def _load_int_array(path, name):
    from ..persistence import load_npy_file

    try:
        # its header is checked against its size first: a forged one claiming 10^12 rows made
        # np.load allocate 7.3 TiB (MemoryError), and objects are never unpickled
        arr = load_npy_file(path)
    except ValueError as exc:
        raise ANNFormatError(str(exc)) from None
    if not isinstance(arr, np.ndarray) or arr.dtype != np.int64 or arr.ndim != 1:
        raise ANNFormatError(f"{path}: {name} must be a 1-D int64 array; got "
                             f"{getattr(arr, 'dtype', type(arr).__name__)} of shape {getattr(arr, 'shape', '?')}")
    return arr


def load_ann(directory, *, mmap=False):
    """Load an index written by :meth:`ApproximateIndex.save`, checking everything first.

    Parameters
    ----------
    directory : str or Path
    mmap : bool
        Memory-map the native index where the backend allows it (a usearch view; faiss's
        ``IO_FLAG_MMAP`` for IVF lists and flat/HNSW vectors). The index is then read-only:
        ``add`` and ``remove`` raise ValueError.

    Returns
    -------
    ApproximateIndex
        Fitted, searching exactly as the saved one did.

    Raises
    ------
    FileNotFoundError
        If ``directory`` does not exist.
    ANNFormatError
        (a ValueError) if the directory is not a valid saved index: missing, unreadable or
        oversized ``meta.json``; unknown format, newer version or unknown backend; bad
        parameters; a missing file or a sha256 mismatch; ids that are not unique non-negative
        int64 or disagree with ``n``; a native index that disagrees with the meta (type,
        dimensions, metric, count, ids).
    ImportError
        If the backend's package is not installed here (naming ``learnsim[ann]``).

    Notes
    -----
    The checksums detect accidental damage only: whoever edits a directory can recompute them.
    So the meta and the arrays are checked like ``fit`` output, and the native index against
    them; the native file itself is parsed by faiss or usearch, whose readers check its
    structure but are not hardened against deliberately forged files.

    Examples
    --------
    The lines that use a backend are skipped where the ``ann`` extra may be missing:

    >>> import os, tempfile
    >>> import numpy as np
    >>> from learnsim.ann import load_ann, make_ann
    >>> X = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0.9, 0.1], [0, 0, 1]])
    >>> directory = os.path.join(tempfile.mkdtemp(), "vectors.ann")
    >>> _ = make_ann("usearch", metric="cosine").fit(X).save(directory)   # doctest: +SKIP
    >>> ann = load_ann(directory)                                     # doctest: +SKIP
    >>> ann                                                           # doctest: +SKIP
    USearchIndex(metric='cosine')
    >>> ann.search(X[2:3], 2)[0]                                      # doctest: +SKIP
    array([[2, 3]])
    """
    directory = Path(directory)
    if not directory.exists():
        raise FileNotFoundError(f"saved ANN index {directory} does not exist")
    if not directory.is_dir():
        raise ANNFormatError(f"{directory} is not a directory; load_ann reads the directory that "
                             "ApproximateIndex.save writes")
    meta = _read_meta(directory)
    meta_path = directory / META_FILE
    try:
        index = make_ann(meta["backend"], meta["metric"], **meta["params"])
    except (ValueError, TypeError) as exc:
        raise ANNFormatError(f"{meta_path}: its backend parameters are refused: {exc}") from None
    if meta["dtype"] != index._stored_dtype:
        raise ANNFormatError(f"{meta_path}: dtype is {meta['dtype']!r} but {meta['backend']} with these "
                             f"parameters stores {index._stored_dtype!r}")
    if meta["native_file"] != index._NATIVE_FILE:
        raise ANNFormatError(f"{meta_path}: native_file is {meta['native_file']!r}; {meta['backend']} "
                             f"writes {index._NATIVE_FILE!r}")
    names = ("ids",) + tuple(index._extra_array_names())
    expected = sorted([index._NATIVE_FILE] + [f"{name}.npy" for name in names])
    if sorted(meta["files"]) != expected:
        raise ANNFormatError(f"{meta_path}: files lists {sorted(meta['files'])}; {meta['backend']} "
                             f"saves {expected}")
    for name in expected:
        path = directory / name
        if not path.is_file():
            raise ANNFormatError(f"{directory} lacks {name}, which {META_FILE} lists; the save is incomplete "
                                 "or was damaged")
        if sha256_file(path) != meta["files"][name]:
            raise ANNFormatError(f"{path} is corrupted (sha256 checksum mismatch with {META_FILE})")
    arrays = {name: _load_int_array(directory / f"{name}.npy", name) for name in names}
    ids = arrays["ids"]
    n = meta["n"]
    if ids.shape[0] != n:
        raise ANNFormatError(f"{directory / IDS_FILE} holds {ids.shape[0]} ids but {META_FILE} says n={n}")
    if n:
        if ids.min() < 0 or ids.max() >= meta["next_id"]:
            raise ANNFormatError(f"{directory / IDS_FILE}: ids must lie in [0, next_id={meta['next_id']}); "
                                 f"found {int(ids.min())}..{int(ids.max())}")
        ordered = np.sort(ids)
        if np.any(ordered[1:] == ordered[:-1]):
            raise ANNFormatError(f"{directory / IDS_FILE}: ids repeat; every item has its own id")
    return ApproximateIndex._restore(index, directory, meta, arrays, mmap=mmap)
