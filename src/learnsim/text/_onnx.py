"""The ONNX backends of :class:`learnsim.text.encoders.SentenceEncoder`: ``backend="onnx"`` and
``backend="onnx-int8"`` run the model's transformer, exported to ONNX, with onnxruntime on the CPU.

The sentence-transformers model is loaded as for ``backend="torch"`` (its tokenizer, its
``max_seq_length``); its transformer is exported once with ``torch.onnx.export`` into a cache
folder and reused by every later load; the vectors are its mean pooling over the attention mask,
unit rows where the model ends in a Normalize module, then ``normalize`` as with PyTorch. Only
models of a Transformer, a mean Pooling and optionally a Normalize module are run (others: a
ValueError naming their modules); the PyTorch network is dropped once the file is loaded.

* ``"onnx"``: the float32 export, fused by onnxruntime's transformer optimizer (Attention,
  SkipLayerNormalization, ...); the same vectors as PyTorch to about 1e-5.
* ``"onnx-int8"``: the export with its weights quantised to int8 per channel
  (``onnxruntime.quantization.quantize_dynamic``; activations quantised at run time), a quarter
  of the file size. On all-MiniLM-L6-v2 (``benchmarks/bench_encoder_backends.py``, 2 CPU cores):
  1.41x PyTorch's texts/s, cosine to PyTorch's vectors 0.995 mean, NFCorpus nDCG@10 0.3020 against
  0.3024.

The cache folder is ``$LEARNSIM_ONNX_CACHE`` when set, else ``$XDG_CACHE_HOME/learnsim/onnx``
(``~/.cache/learnsim/onnx``); in it, one folder per model folder, backend and state of the model's
files (names, sizes, modification times), holding ``model.onnx`` and ``export.json`` (what was
exported, how, how closely the export agrees with PyTorch on a few sentences, and the SHA-256
of ``model.onnx``). A folder is written under a temporary name and renamed, so processes that
export at once never read a half written file. Every load checks ``model.onnx`` against the
digest in its ``export.json``: a file damaged since (its size may be unchanged), or one written
before the digest was recorded, is exported again (with a warning naming the file where it was
damaged) instead of giving wrong vectors. The model folder itself is never written to.

Needs onnxruntime and onnx (``pip install "learnsim[onnx]"``), and PyTorch with
sentence-transformers to load the model and export it.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import inspect
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

#: The values of ``SentenceEncoder(backend=...)`` and ``learnsim fit --encoder-backend``.
BACKENDS = ("torch", "onnx", "onnx-int8")
ONNX_HINT = 'pip install "learnsim[onnx]"'
CACHE_ENV = "LEARNSIM_ONNX_CACHE"
# Relative L2 difference allowed between a saved encoder's probe vectors and those of the model
# reloaded with the same backend. float32 ONNX agrees with itself to rounding (1e-3, as PyTorch);
# int8 quantises the activations at run time with the CPU's own int8 kernels, which differ a
# little between instruction sets, and a re-export writes the same weights: 3e-2 is still far
# below another model (about 1).
PROBE_RTOL = {"onnx": 1e-3, "onnx-int8": 3e-2}
# Below this smallest cosine between the export's vectors and PyTorch's on the check sentences,
# the export warns (a fused graph that does not agree is replaced by the plain export).
_MIN_COSINE = {"onnx": 0.9999, "onnx-int8": 0.9}
_EXPORT_FORMAT = 1
_FILE = "model.onnx"
_INFO = "export.json"
_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
# The sentences an export is checked on: short and long, punctuation, digits, and one past any
# max_seq_length (the truncation must agree too).
_CHECK_TEXTS = (
    "learnsim probe: the quick brown fox jumps over the lazy dog.",
    "A second probe sentence, about 42 questions on metric learning?",
    "cat",
    "",
    "Where can I watch football tonight, and which team is likely to score the first goal?",
    " ".join(["How do I learn to cook rice well on a small stove in a hurry?"] * 50),
)


def check_backend(name, backend, device):
    """A ValueError unless ``backend`` is one of :data:`BACKENDS` and runs on ``device``."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"{name}: backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}")
    if backend != "torch" and str(device).strip().lower() != "cpu":
        raise ValueError(f"{name}: backend {backend!r} runs on the CPU (onnxruntime's CPU provider); device must "
                         f"be 'cpu', got {device!r} (backend='torch' runs on a GPU)")


def import_onnxruntime():
    try:
        import onnxruntime
    except ImportError as exc:
        raise ImportError(f"the ONNX backends of SentenceEncoder need onnxruntime: {ONNX_HINT} "
                          f"(import failed: {exc})") from exc
    return onnxruntime


def cache_root():
    """The folder of the exports: ``$LEARNSIM_ONNX_CACHE``, else the user's cache folder."""
    given = os.environ.get(CACHE_ENV, "").strip()
    if given:
        return Path(given).expanduser().absolute()
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache")
    return base.expanduser().absolute() / "learnsim" / "onnx"


def _source_key(model_path, backend):
    """A hash of what an export depends on: the format, the backend, the model folder's path and
    the names, sizes and modification times of its files (two levels deep)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(json.dumps([_EXPORT_FORMAT, backend, str(model_path)]).encode("utf-8"))
    for path in sorted(p for pattern in ("*", "*/*") for p in model_path.glob(pattern)):
        relative = path.relative_to(model_path).as_posix()
        if relative.startswith(".") or "/." in relative:
            continue
        with contextlib.suppress(OSError):
            stat = path.stat()
            if path.is_file():
                h.update(f"{relative}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


# ----------------------------------------------------------------------------- the model's structure

def _pooling_mode(pool):
    mode = getattr(pool, "pooling_mode", None)
    if mode is None and callable(getattr(pool, "get_pooling_mode_str", None)):   # sentence-transformers < 6
        mode = pool.get_pooling_mode_str()
    if isinstance(mode, (list, tuple)):
        mode = mode[0] if len(mode) == 1 else "+".join(map(str, mode))
    return str(mode)


def check_structure(st_model, model_path):
    """``(tokenizer, max_seq_length, ends_normalized)`` of a sentence-transformers model the
    ONNX backends can run (Transformer, mean Pooling, optional Normalize); a ValueError otherwise."""
    modules = list(st_model)
    names = [type(m).__name__ for m in modules]
    where = f"the model at {str(model_path)!r}"
    if len(names) < 2 or names[0] != "Transformer" or names[1] != "Pooling" or any(n != "Normalize" for n in names[2:]):
        raise ValueError(f"{where} is made of {' -> '.join(names) or 'no modules'}; the ONNX backends run "
                         "Transformer -> Pooling (mean) [-> Normalize] models only: use backend='torch'")
    mode = _pooling_mode(modules[1])
    if mode not in ("mean", "mean_tokens"):
        raise ValueError(f"{where} pools its tokens with {mode!r} pooling; the ONNX backends support mean pooling "
                         "only: use backend='torch'")
    if getattr(st_model, "default_prompt_name", None):
        raise ValueError(f"{where} adds its prompt {st_model.default_prompt_name!r} to every text; the ONNX backends "
                         "run models without a default prompt: use backend='torch'")
    tokenizer = getattr(st_model, "tokenizer", None)
    if tokenizer is None or not callable(tokenizer):
        raise ValueError(f"{where} has no text tokenizer; the ONNX backends run text models: use backend='torch'")
    max_length = getattr(st_model, "max_seq_length", None)
    return tokenizer, (None if max_length is None else int(max_length)), len(names) > 2


# ----------------------------------------------------------------------------- running an export

def _unit(E):
    return E / np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-12)


class OnnxSentenceModel:
    """What ``SentenceEncoder.model_`` is under an ONNX backend: an onnxruntime session of the
    exported transformer with the model's tokenizer, mean pooling and (where the model has one)
    its Normalize module; :meth:`encode` takes the arguments SentenceEncoder passes to
    ``SentenceTransformer.encode``.

    Attributes
    ----------
    backend : str
    file : pathlib.Path
        The ONNX file (in the cache folder, see the module notes).
    info : dict
        The export's record (``export.json``): how it was exported, its agreement with PyTorch.
    """

    def __init__(self, file, tokenizer, max_seq_length, normalized, info, threads=0):
        ort = import_onnxruntime()
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(threads)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3          # errors only: its warnings are about the graph, not the user's texts
        self.session = ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.tokenizer, self.max_seq_length, self.normalized = tokenizer, max_seq_length, bool(normalized)
        self.backend, self.file, self.info = info["backend"], Path(file), info
        self.embedding_dim = int(info["embedding_dim"])

    def __repr__(self):
        return f"OnnxSentenceModel({self.backend!r}, {str(self.file)!r})"

    def _features(self, batch):
        kwargs = {"padding": True, "truncation": "longest_first", "return_tensors": "np"}
        if self.max_seq_length is not None:
            kwargs["max_length"] = self.max_seq_length
        return self.tokenizer(batch, **kwargs)

    def _pooled(self, batch):
        features = self._features(batch)
        feed = {name: np.asarray(features[name], dtype=np.int64) for name in self.input_names}
        hidden = self.session.run(None, feed)[0]
        mask = np.asarray(features["attention_mask"], dtype=np.float32)[..., None]
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        return _unit(pooled) if self.normalized else pooled

    def encode(self, items, batch_size=32, show_progress_bar=None, convert_to_numpy=True,
               normalize_embeddings=False, **kwargs):
        """One float32 row per text of ``items``: batches of ``batch_size`` texts, longest
        first (as sentence-transformers batches them); unit rows when ``normalize_embeddings``."""
        items = list(items)
        out = np.zeros((len(items), self.embedding_dim), dtype=np.float32)
        order = np.argsort([-len(t) for t in items], kind="stable")
        size = max(1, int(batch_size))
        for start in range(0, len(items), size):
            chunk = order[start:start + size]
            out[chunk] = self._pooled([items[i] for i in chunk])
        return _unit(out) if normalize_embeddings else out


def onnx_model(st_model, model_path, backend):
    """The :class:`OnnxSentenceModel` of ``st_model`` (loaded from ``model_path``) under
    ``backend``: its export from the cache folder, exported there first when missing."""
    tokenizer, max_length, normalized = check_structure(st_model, model_path)
    import_onnxruntime()
    threads = 0
    torch = sys.modules.get("torch")
    if torch is not None:           # as many threads as PyTorch uses (torch.set_num_threads)
        with contextlib.suppress(Exception):
            threads = int(torch.get_num_threads())
    file, info, temporary = _exported(st_model, Path(model_path), backend, tokenizer, max_length, normalized)
    try:
        return OnnxSentenceModel(file, tokenizer, max_length, normalized, info, threads)
    except (ImportError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own error types
        message = " ".join(str(exc).split())
        raise ValueError(f"onnxruntime could not load the {backend} export {str(file)!r} ({type(exc).__name__}: "
                         f"{message[:200]}); delete its folder to export the model again") from exc
    finally:
        if temporary:               # loaded into the session: the file is no longer needed
            shutil.rmtree(file.parent, ignore_errors=True)


def file_digest(path):
    """The SHA-256 of the file at ``path``, hex (read in blocks: an export is 20-400 MB)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_info(folder, backend, warn=False):
    """The record of a complete, intact export in ``folder`` for ``backend``, else None.

    Intact: ``model.onnx`` has the size and the SHA-256 its record gives. A file whose bytes
    changed since it was written (a bad disk, a half-finished copy) still has its size, and
    onnxruntime runs what it holds: wrong weights give wrong vectors and no error. With ``warn``,
    such a file is named in a warning (it is then exported again)."""
    file = folder / _FILE
    try:
        info = json.loads((folder / _INFO).read_text(encoding="utf-8"))
        size = file.stat().st_size
    except (OSError, ValueError):
        return None
    if (not isinstance(info, dict) or info.get("format") != _EXPORT_FORMAT or info.get("backend") != backend
            or info.get("bytes") != size or not isinstance(info.get("embedding_dim"), int)
            or not isinstance(info.get("sha256"), str)):
        return None                 # another format, unfinished, or written before digests: export again
    try:
        digest = file_digest(file)
    except OSError:
        return None
    if digest != info["sha256"]:
        if warn:
            warnings.warn(f"the cached ONNX export {str(file)!r} is damaged (its SHA-256 is not the one recorded in "
                          f"{_INFO} when it was written); the model is exported again", UserWarning, stacklevel=5)
        return None
    return info


def _export_or_say(st_model, folder, backend, tokenizer, max_length, normalized, model_path):
    """:func:`export`, its failure a ValueError of one line that names the model (an
    architecture the exporter cannot trace, a graph onnxruntime cannot run)."""
    try:
        return export(st_model, folder, backend, tokenizer, max_length, normalized, model_path)
    except (ImportError, OSError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - torch's and onnxruntime's errors are many and deep
        message = " ".join(str(exc).split())
        raise ValueError(f"could not export the model at {str(model_path)!r} to ONNX for backend {backend!r} "
                         f"({type(exc).__name__}: {message[:200]}); use backend='torch'") from exc


def _exported(st_model, model_path, backend, tokenizer, max_length, normalized):
    """(file, record, temporary) of the export of ``st_model`` under ``backend``: found in the
    cache folder, else exported into it (a temporary folder where the cache cannot be written)."""
    root = cache_root()
    label = re.sub(r"[^A-Za-z0-9_.]+", "_", "-".join(model_path.parts[-2:]))[:80] or "model"
    folder = root / f"{label}-{backend}-{_source_key(model_path, backend)}"
    info = _read_info(folder, backend, warn=True)
    if info is not None:
        return folder / _FILE, info, False
    try:
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{folder.name}-", dir=root))
    except OSError as exc:
        warnings.warn(f"cannot write the ONNX export of {str(model_path)!r} to {str(root)!r} ({type(exc).__name__}: "
                      f"{exc}); it is exported again at every load (set {CACHE_ENV} to a writable folder)",
                      UserWarning, stacklevel=5)
        work = Path(tempfile.mkdtemp(prefix="learnsim-onnx-"))
        try:
            info = _export_or_say(st_model, work, backend, tokenizer, max_length, normalized, model_path)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        return work / _FILE, info, True       # removed once loaded (onnx_model)
    try:
        info = _export_or_say(st_model, work, backend, tokenizer, max_length, normalized, model_path)
        os.chmod(work, 0o755)               # mkdtemp's 0700 would keep a shared cache folder to its writer
        try:
            os.rename(work, folder)
        except OSError:
            # another process published its export first, or a damaged one is in the way
            if _read_info(folder, backend) is None:
                shutil.rmtree(folder, ignore_errors=True)
                with contextlib.suppress(OSError):
                    os.rename(work, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    info = _read_info(folder, backend)
    if info is None:
        raise OSError(f"the ONNX export of {str(model_path)!r} could not be written to {str(folder)!r}")
    return folder / _FILE, info, False


# ----------------------------------------------------------------------------- exporting

@contextlib.contextmanager
def _quiet():
    """The exporter's and the quantiser's warnings off: they speak of graph internals (tracing
    of Python conditions, pre-processing advice), not of anything the user can act on. The
    quantiser logs through the root logger, which would configure logging for the whole process:
    a handler is put there while it runs so that it does not."""
    root = logging.getLogger()
    placeholder = logging.NullHandler() if not root.handlers else None
    if placeholder is not None:
        root.addHandler(placeholder)
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(previous)
        if placeholder is not None:
            root.removeHandler(placeholder)


def _hidden_states_module(torch, model, names):
    class Hidden(torch.nn.Module):
        """The transformer's last hidden state from its inputs, positionally (as exported)."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs))).last_hidden_state

    return Hidden().eval()


def export(st_model, folder, backend, tokenizer, max_length, normalized, model_path):
    """Write ``folder/model.onnx`` (and ``export.json``) for ``backend``; its record.

    A copy of the network with eager attention is exported (transformers' SDPA masking exports
    to a graph whose attention onnxruntime cannot fuse), with the TorchScript exporter
    (deprecated in torch 2.9, still there; torch.export, which needs onnxscript, where it fails).
    ``"onnx"``: that file fused by onnxruntime's transformer optimizer (Attention,
    SkipLayerNormalization, BiasGelu), kept only where it gives PyTorch's vectors (else the plain
    export). ``"onnx-int8"``: the plain export dynamically quantised (weights int8 per channel;
    the quantiser cannot read the fused graph's shapes). Both are then checked against PyTorch on
    a few sentences, recorded in ``export.json``.
    """
    try:
        import onnx  # noqa: F401 - the optimizer and the quantiser read and write ONNX files with it
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ImportError(f"exporting a model to ONNX needs onnx, onnxruntime and PyTorch: {ONNX_HINT} "
                          f"(import failed: {exc})") from exc
    tic = time.perf_counter()
    hf = copy.deepcopy(st_model[0].auto_model).eval()
    try:
        hf.set_attn_implementation("eager")
    except (AttributeError, ValueError):
        hf.config._attn_implementation = "eager"
    sample = tokenizer(list(_CHECK_TEXTS[:2]), padding=True, return_tensors="pt")
    accepted = set(inspect.signature(hf.forward).parameters)
    names = [n for n in _INPUT_NAMES if n in sample and n in accepted]
    args = tuple(sample[n] for n in names)
    raw, out = folder / "model_raw.onnx", folder / _FILE
    wrapped = _hidden_states_module(torch, hf, names)
    # the exporters' progress lines go to stderr: stdout may be a command's --json output
    with torch.no_grad(), _quiet(), contextlib.redirect_stdout(sys.stderr):
        try:
            torch.onnx.export(wrapped, args, str(raw), dynamo=False, opset_version=17, input_names=names,
                              output_names=["last_hidden_state"],
                              dynamic_axes={n: {0: "batch", 1: "seq"} for n in names + ["last_hidden_state"]})
            how = "TorchScript export"
        except Exception:  # noqa: BLE001 - the older exporter gone: torch.export (needs onnxscript)
            from torch.export import Dim

            batch, seq = Dim("batch"), Dim("seq", max=max(int(max_length or 512), 8))
            torch.onnx.export(wrapped, args, str(raw), dynamo=True, external_data=False, verbose=False,
                              input_names=names, output_names=["last_hidden_state"],
                              dynamic_shapes=(tuple({0: batch, 1: seq} for _ in names),))   # one tuple: *inputs
            how = "torch.export"
        if backend == "onnx-int8":
            quantize_dynamic(str(raw), str(out), weight_type=QuantType.QInt8, per_channel=True)
            how += ", int8 weights per channel (dynamic quantisation)"
        else:
            how += _fuse(raw, out, hf.config)
    del hf, wrapped
    reference = _unit(np.asarray(st_model.encode(list(_CHECK_TEXTS), batch_size=8, convert_to_numpy=True,
                                                 show_progress_bar=False), dtype=np.float32))

    def agreement():
        info = {"backend": backend, "embedding_dim": int(reference.shape[1])}
        ours = OnnxSentenceModel(out, tokenizer, max_length, normalized, info).encode(list(_CHECK_TEXTS), 8)
        return np.einsum("ij,ij->i", _unit(ours), reference)

    cosine = agreement()
    if backend == "onnx" and raw.exists() and cosine.min() < _MIN_COSINE[backend] and "fused" in how:
        shutil.copyfile(raw, out)           # the fused graph does not compute the model: the plain export does
        how = how.split(", fused")[0] + ", not fused (the fused graph disagreed with PyTorch)"
        cosine = agreement()
    raw.unlink(missing_ok=True)
    if cosine.min() < _MIN_COSINE[backend]:
        warnings.warn(f"the {backend} export of {str(model_path)!r} agrees poorly with the model under PyTorch "
                      f"(cosine of their vectors {float(cosine.min()):.4f} at the smallest, on "
                      f"{len(_CHECK_TEXTS)} sentences)" + ("; backend='onnx' is float32" if backend == "onnx-int8" else ""),
                      UserWarning, stacklevel=6)
    import onnxruntime

    info = {"format": _EXPORT_FORMAT, "backend": backend, "model_path": str(model_path), "how": how,
            "inputs": names, "max_seq_length": max_length, "normalized": bool(normalized),
            "embedding_dim": int(reference.shape[1]), "bytes": out.stat().st_size, "sha256": file_digest(out),
            "seconds": round(time.perf_counter() - tic, 2),
            "cosine_to_torch": {"mean": round(float(cosine.mean()), 6), "min": round(float(cosine.min()), 6)},
            "versions": {m.__name__: getattr(m, "__version__", None) for m in (torch, onnxruntime, onnx)}}
    (folder / _INFO).write_text(json.dumps(info, indent=1), encoding="utf-8")
    return info


def _fuse(raw, out, config):
    """Fuse ``raw`` into ``out`` with onnxruntime's transformer optimizer; what was done, in words."""
    try:
        from onnxruntime.transformers import optimizer

        fused = optimizer.optimize_model(str(raw), model_type="bert", num_heads=int(config.num_attention_heads),
                                         hidden_size=int(config.hidden_size))
        fused.save_model_to_file(str(out))
        counts = {k: v for k, v in fused.get_fused_operator_statistics().items() if v}
        return ", fused " + ", ".join(f"{v} {k}" for k, v in counts.items()) if counts else ", nothing to fuse"
    except Exception as exc:  # noqa: BLE001 - no fusion: the plain export is still the model
        shutil.copyfile(raw, out)
        return f", not fused ({type(exc).__name__})"
