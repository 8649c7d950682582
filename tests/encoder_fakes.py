"""A deterministic numpy stand-in for a sentence encoder, so that what learnsim builds on encoders
(the encoder as a pipeline's vectoriser, the pair models' encoder cosine, the lexical + dense
search rule, persistence, the index, the command line) runs in CI without PyTorch.

:class:`HashedWordEncoder` follows the encoder interface (``transform(texts)`` -> one dense row per
text, ``embedding_dim_``): each word gets a fixed random vector seeded by its hash, a text the
unit sum of its words' vectors. Its class path is made a learnsim one so that a model file can
hold it; :func:`register` makes that path resolve while a test runs (a saved model is loaded by
class path, and only learnsim classes are allowed).
"""
from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

_WORD = re.compile(r"\w+")
NAME = "HashedWordEncoder"


class HashedWordEncoder:
    """Hashed bag of words -> dense unit rows (see the module notes). ``calls`` counts the
    texts encoded, to check what is encoded once."""

    def __init__(self, dim=24, seed=0):
        self.dim, self.seed = int(dim), int(seed)
        self.embedding_dim_ = self.dim
        self.model_path_ = f"/fake/hashed-words-{self.dim}"
        self.n_encoded = 0
        self._words = {}

    def _vector(self, word):
        v = self._words.get(word)
        if v is None:
            digest = hashlib.sha256(f"{self.seed}:{word}".encode()).digest()
            v = np.random.default_rng(int.from_bytes(digest[:8], "little")).normal(size=self.dim)
            self._words[word] = v
        return v

    def transform(self, texts):
        texts = list(texts)
        self.n_encoded += len(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            v = self._vector("<text>") * 0.05
            for word in _WORD.findall(text.lower()):
                v = v + self._vector(word)
            out[i] = v / np.linalg.norm(v)
        return out

    def _get_state(self):
        return {"dim": self.dim, "seed": self.seed}, {}

    @classmethod
    def _from_state(cls, meta, arrays):
        return cls(meta["dim"], meta["seed"])


# a learnsim class path, resolved by register(): a model file may hold only learnsim classes
HashedWordEncoder.__module__ = "learnsim.text.encoders"


def register(monkeypatch):
    """Make ``learnsim.text.encoders.HashedWordEncoder`` resolve (for loading saved models) for
    the test's duration."""
    import learnsim.text.encoders as encoders

    monkeypatch.setattr(encoders, NAME, HashedWordEncoder, raising=False)


def topic_texts(per_topic=10, seed=0):
    """Short texts of four topics, each with its topic's words and shared filler; (texts, topic)."""
    topics = {"animals": "cat dog horse bird fish cow sheep goat mouse lion",
              "food": "bread cheese apple soup rice pasta butter salad cake honey",
              "weather": "rain snow wind sun storm cloud fog frost thunder heat",
              "sport": "football tennis golf race goal match team score coach ball"}
    filler = "the a is and on in with very today what how".split()
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for label, words in enumerate(topics.values()):
        words = words.split()
        for _ in range(per_topic):
            chosen = list(rng.choice(words, size=3, replace=False)) + list(rng.choice(filler, size=3))
            rng.shuffle(chosen)
            texts.append(" ".join(chosen))
            labels.append(label)
    return texts, np.array(labels)


def topic_pairs(per_topic=12, n_pairs=240, seed=0):
    """(texts, [(i, j, label)]): pairs of topic texts, label 1 for one topic (half of them)."""
    texts, labels = topic_texts(per_topic, seed)
    rng = np.random.default_rng(seed + 1)
    rows = []
    while len(rows) < n_pairs:
        i = int(rng.integers(len(texts)))
        pool = np.flatnonzero(labels == labels[i]) if len(rows) % 2 else np.arange(len(texts))
        j = int(rng.choice(pool))
        if i != j:
            rows.append((i, j, int(labels[i] == labels[j])))
    return texts, rows


class _HashedWordsModel:
    """Stands in for a SentenceTransformer: the vectors of :class:`HashedWordEncoder`."""

    def __init__(self):
        self._words = HashedWordEncoder()

    def encode(self, items, batch_size=32, show_progress_bar=None, convert_to_numpy=True,
               normalize_embeddings=False, **kwargs):
        return self._words.transform(items)


def _hashed_sentence_encoder():
    from learnsim.text.encoders import SentenceEncoder

    class HashedSentenceEncoder(SentenceEncoder):
        """The real :class:`learnsim.text.encoders.SentenceEncoder` (its memo, its embedding cache,
        its count of encoded texts, its saved state) over hashed word vectors in place of a network."""

        def fit(self, texts=None, y=None):
            self.model_ = _HashedWordsModel()
            self.model_path_ = str(self.model_path)
            self._set_probe()
            return self

    HashedSentenceEncoder.__module__ = "learnsim.text.encoders"
    HashedSentenceEncoder.__qualname__ = "HashedSentenceEncoder"
    return HashedSentenceEncoder


def register_sentence_encoder(monkeypatch, name="fake-sentence-encoder"):
    """``load_encoder(name)`` gives a HashedSentenceEncoder (a SentenceEncoder whose model is hashed
    words), and saved models holding one load again, for the test's duration."""
    import learnsim.text.encoders as encoders

    cls = _hashed_sentence_encoder()
    monkeypatch.setattr(encoders, "HashedSentenceEncoder", cls, raising=False)
    real = encoders.load_encoder

    def load(value, **kwargs):
        return cls(f"/fake/{name}").fit() if str(value) == name else real(value, **kwargs)

    monkeypatch.setattr(encoders, "load_encoder", load)
    return cls


class _Session:
    """Stands in for an onnxruntime InferenceSession: it encodes, and it does not pickle."""

    def __init__(self, model):
        self.model, self.lock = model, threading.Lock()

    def encode(self, *args, **kwargs):
        return self.model.encode(*args, **kwargs)


LOADS = []


class OnnxHashedEncoder(_hashed_sentence_encoder()):
    """A SentenceEncoder as under backend="onnx": its model is a session (of hashed word vectors)
    that does not pickle, as onnxruntime's does not; each load is counted in LOADS, and
    words_seed stands for the weights in its folder. A module-level class: a Dask worker process
    imports it by this module's name."""

    words_seed = 0

    def fit(self, texts=None, y=None):
        super().fit(texts, y)
        self.model_._words = HashedWordEncoder(seed=type(self).words_seed)
        self.model_ = _Session(self.model_)
        self._set_probe()
        LOADS.append(self.model_path_)
        return self
