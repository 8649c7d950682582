"""The embedding cache of :mod:`learnsim.text.encoders` (:func:`embedding_cache`): the vectors
a model gave for texts, kept on disk by the model's identity and each text's digest, and the
count of texts sent to models (:func:`encoded_text_count`). A separate concern from loading and
running a model: a cache knows an encoder only by its key.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np

__all__ = ["embedding_cache", "encoded_text_count", "index_embedding_cache"]


def _one_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# On-disk layout (embedding_cache): DIRECTORY/<class>-<key id>/ per encoder identity, holding
# key.json (the identity in words, for people and as a check) and shards, each a pair
# <name>.keys.npy (uint8, n x 16: blake2b-128 of each text's UTF-8) and <name>.vectors.npy
# (float32, n x dim). <name> is the blake2b-128 of the key id, the keys and the vectors: a shard
# is checked against its own name before its vectors are used, so a damaged, truncated or
# foreign file is found, not read as vectors; and two processes that write the same rows write
# the same name and the same bytes, so concurrent writers never clash.
_CACHE_FORMAT = 1
_SHARD_ROWS = 8192                 # rows written per shard (a shard is written as its rows are encoded)
_SHARD_MEMORY = 256 * 2 ** 20      # bytes of checked shard vectors a cache keeps in memory (LRU)
_RESCAN_SECONDS = 1.0              # how long a listing of a cache folder is taken as current
_CACHE_LOCK = threading.Lock()
# the cache of the innermost embedding_cache() block, process-wide; outside every block, the folder
# the command line set beside its model or index (learnsim._utils.embedding_home)
_NO_BLOCK = object()
_ACTIVE_CACHE = [_NO_BLOCK]
_DEFAULT_CACHES = {}
_ENCODED = [0]                     # texts sent to a model by transform, process-wide (encoded_text_count)
# Encoding runs in chunks of whole batches taking about this long, so that progress moves, the
# cache receives finished rows, and an interrupted run keeps what it encoded; capped in batches
# because each call of the model costs a little.
_CHUNK_SECONDS = 2.0
_CHUNK_MAX_BATCHES = 64
# Below this many texts to encode, a call sets no progress up unless asked (a search's queries).
_PROGRESS_AT_LEAST = 100


def encoded_text_count():
    """The number of texts this process has sent to an encoder's model through ``transform``.

    Counts every :class:`SentenceEncoder` and :class:`Model2VecEncoder`: texts found in the
    in-memory memo or in an :func:`embedding_cache` are not counted, repeated texts of one call
    count once, and the two probe sentences a load encodes are left out. Take the difference
    around some work to see how many texts it encoded (zero when a shared cache held them all).

    Returns
    -------
    int

    Examples
    --------
    >>> from learnsim.text.encoders import encoded_text_count
    >>> before = encoded_text_count()
    >>> encoded_text_count() - before     # nothing encoded in between
    0
    """
    return _ENCODED[0]


@contextlib.contextmanager
def embedding_cache(directory):
    """Keep every text's embedding on disk in ``directory`` while the block runs: each
    :class:`SentenceEncoder` and :class:`Model2VecEncoder` ``transform`` takes the vectors it
    finds there and writes those it had to compute, so that the texts of a collection are
    encoded once across fit, index and evaluate (and across processes that share the folder).

    Parameters
    ----------
    directory : str, path-like or None
        The cache folder, created on first write. None: no disk cache in the block (an outer
        block's is switched off too).

    Yields
    ------
    cache or None
        None for ``directory=None``; else an object with ``directory`` (absolute Path),
        ``n_read`` (vectors taken from the disk) and ``n_written`` (vectors written).

    Notes
    -----
    Vectors are kept per encoder identity: the class, the model folder, ``normalize``,
    ``batch_size``, the ``backend`` (PyTorch, ONNX, ONNX int8) and the fingerprint of the model (its embeddings of two probe sentences), so
    another model at the same path, or other settings, never reuse them. Each text is found by
    the blake2b hash of its UTF-8 bytes. Files are written to a temporary name and renamed, in
    shards named by the hash of their content: processes can share one folder. A shard is
    checked (its shape, dtype and content hash) before use; one that is damaged is ignored with
    one warning and its texts are encoded again. A folder that cannot be written gives one
    warning, and the vectors are returned as usual. Memory: 24 bytes a cached text for the
    lookup, and at most 256 MB of checked vectors; the in-memory memo of the encoders still
    applies.

    The block is process-wide (every thread's encoders use it), like :func:`learnsim.set_progress`.
    Blocks nest: the innermost applies, and the outer one is back after it.

    Examples
    --------
    >>> from learnsim.text.encoders import embedding_cache
    >>> with embedding_cache(None) as cache:      # directory=None: no cache
    ...     print(cache)
    None

    With a model (not run here): the second transform reads every vector from the folder.

    >>> with embedding_cache("emb-cache"):                          # doctest: +SKIP
    ...     E = load_encoder("all-MiniLM-L6-v2").transform(texts)
    """
    cache = None if directory is None else _EmbeddingCache(directory)
    with _CACHE_LOCK:
        previous, _ACTIVE_CACHE[0] = _ACTIVE_CACHE[0], cache
    try:
        yield cache
    finally:
        with _CACHE_LOCK:
            _ACTIVE_CACHE[0] = previous


def _text_keys(texts):
    """(n, 16) uint8: the blake2b-128 of each text's UTF-8 (lone surrogates kept as they are)."""
    joined = b"".join(hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16).digest()
                      for t in texts)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(texts), 16)


def _shard_name(key_id, keys, vectors):
    h = hashlib.blake2b(key_id.encode("ascii"), digest_size=16)
    h.update(np.ascontiguousarray(keys).tobytes())
    h.update(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
    return h.hexdigest()


#: The largest key.json read (the cache writes a few hundred bytes); a larger one is not this cache's.
_MAX_KEY_FILE_BYTES = 1 << 16


def _read_small_file(path, limit):
    """The bytes of the regular file ``path``, or None when it holds more than ``limit``; an
    OSError for a pipe, a device or a socket. read_text waited forever on a named pipe (for a
    writer) and read a file of any size whole."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file")
        data = fh.read(limit + 1)
    return data if len(data) <= limit else None


def _read_npy(path, dtype, columns, rows=None):
    """The array of a ``.npy`` file as (dtype, (rows, columns)), or ValueError saying what is
    wrong (FileNotFoundError where there is no file). Read through the checks of every reader of
    a .npy (persistence.load_npy_file): a regular file only (a named pipe stalled np.load), no
    objects, exactly the bytes its header announces (a forged 10^12 rows is refused unread)."""
    from ..persistence import load_npy_file      # here: the cache's import stays light

    path = Path(path)
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    try:
        array = load_npy_file(path, what="embedding cache file")
    except ValueError as exc:    # ModelFormatError: the message names the file, which the warning does
        raise ValueError(_one_line(str(exc).replace(str(path), "it"), 200)) from None
    expected = ("n" if rows is None else rows, columns)
    if (array.dtype != np.dtype(dtype) or array.ndim != 2 or array.shape[1] != columns
            or rows is not None and array.shape[0] != rows):
        raise ValueError(f"holds {array.dtype} {array.shape}, expected {np.dtype(dtype)} ({expected[0]}, {columns})")
    return array


class _EmbeddingCache:
    """The folder of :func:`embedding_cache`: one :class:`_CacheStore` per encoder identity."""

    def __init__(self, directory):
        if isinstance(directory, bytes) or not isinstance(directory, (str, os.PathLike)):
            raise TypeError("embedding_cache directory must be a folder path (str or path-like) or None; "
                            f"got {type(directory).__name__}")
        if not os.fspath(directory).strip():
            raise ValueError("embedding_cache directory is empty; give a folder path, or None for no cache")
        self.directory = Path(os.fspath(directory)).expanduser().absolute()
        self.n_read = 0
        self.n_written = 0
        self.writable = True
        self._stores = {}
        self._lock = threading.RLock()

    def __repr__(self):
        return f"embedding_cache({str(self.directory)!r}: {self.n_read} read, {self.n_written} written)"

    def store_for(self, encoder):
        """The store of ``encoder``'s identity, or None where it has none (no fingerprint)."""
        identity = encoder._identity()
        if identity[-1] is None:
            return None
        kind, model_path, normalize, batch_size, backend, fingerprint = identity
        key = {"format": _CACHE_FORMAT, "encoder": kind, "model_path": model_path, "normalize": normalize,
               "batch_size": batch_size, "fingerprint": fingerprint, "embedding_dim": int(encoder.embedding_dim_)}
        if backend != "torch":      # (PyTorch's vectors keep the folders they had before backends)
            key["backend"] = backend
        key_id = hashlib.blake2b(json.dumps(key, sort_keys=True).encode("utf-8"), digest_size=12).hexdigest()
        with self._lock:
            store = self._stores.get(key_id)
            if store is None:
                folder = self.directory / f"{re.sub(r'[^a-z0-9]+', '', kind.lower()) or 'encoder'}-{key_id}"
                store = self._stores[key_id] = _CacheStore(self, folder, key, key_id)
            return store

    def cannot_write(self, exc):
        """Writes off for the rest of the block, said once."""
        with self._lock:
            if self.writable:
                self.writable = False
                warnings.warn(f"embedding cache: cannot write to {str(self.directory)!r} ({type(exc).__name__}: "
                              f"{_one_line(exc, 160)}); the vectors are computed as usual but not saved there",
                              UserWarning, stacklevel=5)


class _CacheStore:
    """The shards of one encoder identity: a lookup of every cached text's key (sorted by its
    first 8 bytes), the checked vectors of recently used shards, and the writer."""

    def __init__(self, cache, folder, key, key_id):
        self.cache, self.folder, self.key, self.key_id = cache, folder, key, key_id
        self.dim = key["embedding_dim"]
        self.names = []            # shard names, in the order found
        self.rows = []             # rows of each shard
        self.digests = []          # blake2b of each shard's keys bytes as indexed (checked again on read)
        self.bad = set()           # shards found damaged (ignored)
        self.seen = set()          # every shard name looked at, damaged ones too
        self.usable = True         # False: the folder belongs to another identity
        self._pending = []         # (shard index, keys as 2 uint64 columns) not yet in the lookup
        self._hi = self._lo = self._shard = self._row = None
        self._vectors = OrderedDict()
        self._vector_bytes = 0
        self._key_checked = False
        self._scanned, self._stale = -float("inf"), False

    # -- reading
    def _check_key_file(self):
        if self._key_checked:
            return
        path = self.folder / "key.json"
        try:
            raw = _read_small_file(path, _MAX_KEY_FILE_BYTES)
        except FileNotFoundError:
            return                 # not written yet: checked again on the next look
        except OSError:
            return                 # unreadable: the shards, checked against their names, still are
        self._key_checked = True
        from .._utils.inputs import loads   # nesting bounded (json.loads raised RecursionError)

        try:
            same = raw is not None and loads(raw.decode("utf-8")) == self.key
        except ValueError:
            same = False
        if not same:
            self.usable = False
            warnings.warn(f"embedding cache: {str(path)!r} describes another encoder than this folder's name "
                          "says; the folder is ignored (delete it to use the cache for this encoder again)",
                          UserWarning, stacklevel=6)

    def _scan(self):
        """Index the shards written since the last look (by this process or another); at most
        once a second unless this process wrote (a server's every query would list the folder)."""
        now = time.monotonic()
        if not self._stale and now - self._scanned < _RESCAN_SECONDS:
            return
        self._stale, self._scanned = False, now
        self._check_key_file()
        if not self.usable:
            return
        try:
            entries = [e.name for e in os.scandir(self.folder)]
        except (FileNotFoundError, NotADirectoryError):
            return                 # nothing cached yet (or a file in the way: said when writing)
        except OSError as exc:
            self.usable = False
            warnings.warn(f"embedding cache: cannot read {str(self.folder)!r} ({type(exc).__name__}: "
                          f"{_one_line(exc, 160)}); every text is encoded", UserWarning, stacklevel=6)
            return
        damaged = []
        for entry in sorted(entries):
            if not entry.endswith(".vectors.npy") or entry.startswith("."):
                continue
            name = entry[:-len(".vectors.npy")]
            if name in self.seen:
                continue
            self.seen.add(name)
            if not re.fullmatch(r"[0-9a-f]{32}", name):
                damaged.append((entry, "not a name this cache writes"))
                continue
            try:
                keys = _read_npy(self.folder / f"{name}.keys.npy", np.uint8, 16)
            except FileNotFoundError:
                damaged.append((entry, "its keys file is missing"))
                continue
            except ValueError as exc:
                damaged.append((f"{name}.keys.npy", str(exc)))
                continue
            index = len(self.names)
            self.names.append(name)
            self.rows.append(len(keys))
            self.digests.append(hashlib.blake2b(keys.tobytes(), digest_size=16).digest())
            self._pending.append((index, keys.view("<u8")))
        if damaged:
            self._warn_damaged(damaged)

    def _warn_damaged(self, damaged):
        first, reason = damaged[0]
        more = f" and {len(damaged) - 1} more" if len(damaged) > 1 else ""
        warnings.warn(f"embedding cache: ignored the damaged file {str(self.folder / first)!r} ({reason}){more}; "
                      "their texts are encoded again (delete the files to stop this warning)",
                      UserWarning, stacklevel=6)

    def _build(self):
        if not self._pending:
            return
        parts = [(np.full(len(k), i, dtype=np.int32), np.arange(len(k), dtype=np.int32), k)
                 for i, k in self._pending]
        self._pending = []
        shard = np.concatenate([p[0] for p in parts])
        row = np.concatenate([p[1] for p in parts])
        keys = np.concatenate([p[2] for p in parts])
        if self._hi is not None:
            shard = np.concatenate([self._shard, shard])
            row = np.concatenate([self._row, row])
            keys = np.concatenate([np.column_stack([self._hi, self._lo]), keys])
        order = np.argsort(keys[:, 0], kind="stable")
        self._hi, self._lo = keys[order, 0].copy(), keys[order, 1].copy()
        self._shard, self._row = shard[order], row[order]

    def _lookup(self, keys):
        """(hit, shard, row) of each of ``keys`` ((n, 16) uint8), shards known damaged left out."""
        self._scan()
        self._build()
        if not self.usable or self._hi is None or not len(self._hi) or not len(keys):
            return np.zeros(len(keys), dtype=bool), None, None
        query = keys.view("<u8")
        pos = np.minimum(np.searchsorted(self._hi, query[:, 0]), len(self._hi) - 1)
        # a miss costs an encode, a wrong hit a wrong vector: both halves of the key must agree
        hit = (self._hi[pos] == query[:, 0]) & (self._lo[pos] == query[:, 1])
        shards, rows = self._shard[pos], self._row[pos]
        if self.bad:
            hit &= ~np.isin(shards, [i for i, name in enumerate(self.names) if name in self.bad])
        return hit, shards, rows

    def holds(self, keys):
        """Which of ``keys`` the folder holds (in shards not known damaged), reading no vectors."""
        return self._lookup(keys)[0]

    def read(self, keys):
        """(found, vectors): which of ``keys`` ((n, 16) uint8) the folder holds, and their
        vectors (float32, one row per found key), from checked shards only."""
        empty = np.zeros((0, self.dim), dtype=np.float32)
        hit, shards, rows = self._lookup(keys)
        if not hit.any():
            return hit, empty
        out = np.empty((len(keys), self.dim), dtype=np.float32)
        for index in np.unique(shards[hit]):
            where = np.flatnonzero(hit & (shards == index))
            vectors = self._shard_vectors(int(index))
            if vectors is None:
                hit[where] = False
                continue
            out[where] = vectors[rows[where]]
        return hit, out[hit] if hit.any() else empty

    def _shard_vectors(self, index):
        """The checked vectors of shard ``index``, or None (damaged: said once, then ignored)."""
        name = self.names[index]
        if name in self.bad:
            return None
        vectors = self._vectors.get(name)
        if vectors is not None:
            self._vectors.move_to_end(name)
            return vectors
        try:
            keys = _read_npy(self.folder / f"{name}.keys.npy", np.uint8, 16, rows=self.rows[index])
            if hashlib.blake2b(keys.tobytes(), digest_size=16).digest() != self.digests[index]:
                raise ValueError("its keys file changed since it was read")
            vectors = _read_npy(self.folder / f"{name}.vectors.npy", np.float32, self.dim, rows=self.rows[index])
            if _shard_name(self.key_id, keys, vectors) != name:
                raise ValueError("its content does not match its name (damaged, or written for another encoder)")
            if not np.isfinite(vectors).all():
                raise ValueError("it holds NaN or infinite values")
        except (OSError, ValueError) as exc:
            self.bad.add(name)
            self._warn_damaged([(f"{name}.vectors.npy", str(exc))])
            return None
        if vectors.nbytes <= _SHARD_MEMORY:
            self._vectors[name] = vectors
            self._vector_bytes += vectors.nbytes
            while self._vector_bytes > _SHARD_MEMORY:
                _, dropped = self._vectors.popitem(last=False)
                self._vector_bytes -= dropped.nbytes
        return vectors

    # -- writing
    def write(self, keys, vectors):
        """Add a shard of ``keys`` ((n, 16) uint8) and their ``vectors``; an OSError turns the
        cache's writes off with one warning."""
        if not (self.cache.writable and self.usable and len(keys)):
            return
        keys = np.ascontiguousarray(keys, dtype=np.uint8)
        vectors = np.ascontiguousarray(vectors, dtype="<f4")
        name = _shard_name(self.key_id, keys, vectors)
        temps = []
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if not (self.folder / "key.json").exists():
                self._replace(self.folder / "key.json", temps,
                              lambda f: f.write(json.dumps(self.key, sort_keys=True, indent=1).encode("utf-8")))
            # keys first: a vectors file is only ever seen with its keys beside it
            self._replace(self.folder / f"{name}.keys.npy", temps, lambda f: np.save(f, keys, allow_pickle=False))
            self._replace(self.folder / f"{name}.vectors.npy", temps,
                          lambda f: np.save(f, vectors, allow_pickle=False))
        except OSError as exc:
            for temp in temps:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            self.cache.cannot_write(exc)
            return
        self.cache.n_written += len(keys)
        self._stale = True

    @staticmethod
    def _replace(path, temps, write):
        # unique per process and call: two writers never share a temporary file
        temp = path.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex}-{path.name}"
        temps.append(temp)
        with open(temp, "wb") as f:
            write(f)
        os.replace(temp, path)


def index_embedding_cache(index_path):
    """The embedding cache of an index's own work outside the command line (a promotion or a
    rollback through the service or :class:`learnsim.index.Index`): the folder beside it,
    ``<index>.embeddings``, unless an :func:`embedding_cache` block or the command line chose
    one (then that applies). A context manager."""
    from .._utils.embedding_home import default_embedding_folder

    if _ACTIVE_CACHE[0] is not _NO_BLOCK or default_embedding_folder() is not None:
        return contextlib.nullcontext()
    path = Path(index_path)
    return embedding_cache(path.parent / f"{path.name}.embeddings")


def _write_shards(cache, store, keys, vectors):
    """Write rows into ``store`` (of ``cache``) as shards of at most ``_SHARD_ROWS`` rows."""
    with cache._lock:
        for part in range(0, len(keys), _SHARD_ROWS):
            store.write(keys[part:part + _SHARD_ROWS], vectors[part:part + _SHARD_ROWS])


def _default_cache(folder):
    with _CACHE_LOCK:
        if folder not in _DEFAULT_CACHES:
            _DEFAULT_CACHES[folder] = _EmbeddingCache(folder)
        return _DEFAULT_CACHES[folder]


def _active_cache():
    cache = _ACTIVE_CACHE[0]
    if cache is not _NO_BLOCK:
        return cache
    from .._utils.embedding_home import default_embedding_folder

    folder = default_embedding_folder()
    return None if folder is None else _default_cache(folder)


def _fallback_caches():
    """The caches read (and copied from) where the active one lacks a vector: outside every
    embedding_cache() block, the folders the command line named beside the default one."""
    if _ACTIVE_CACHE[0] is not _NO_BLOCK:
        return ()
    from .._utils.embedding_home import default_embedding_fallbacks

    return tuple(_default_cache(folder) for folder in default_embedding_fallbacks())


class _CacheWriter:
    """Collects the rows of one encode and writes them as shards of ``_SHARD_ROWS`` rows."""

    def __init__(self, cache, store, keys):
        self.cache, self.store, self.keys = cache, store, keys
        self._rows, self._vectors, self._n = [], [], 0

    def add(self, positions, vectors):
        self._rows.append(np.asarray(positions))
        self._vectors.append(np.array(vectors, dtype=np.float32))
        self._n += len(positions)
        if self._n >= _SHARD_ROWS:
            self.flush()

    def flush(self):
        if not self._n:
            return
        rows, vectors = np.concatenate(self._rows), np.concatenate(self._vectors)
        self._rows, self._vectors, self._n = [], [], 0
        with self.cache._lock:
            self.store.write(self.keys[rows], vectors)
