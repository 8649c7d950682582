"""The embedding cache read its .npy shards with np.load (memory-mapped) and none of the checks
of the other readers (persistence.load_npy_file): a named pipe in place of a shard stalled the
encode forever (np.load's open waits for a writer), and a header announcing fewer bytes than the
file holds was read without a word. A shard whose file is forged, of another type or size, is
now ignored with one warning and its texts encoded again: never a stall, never a wrong vector."""
from __future__ import annotations

import os
import signal
import tracemalloc
import warnings

import numpy as np
import pytest

from hostile_npy import npy, object_npy
from learnsim.text import _embedding_cache, encoders
from learnsim.text.encoders import embedding_cache, encoded_text_count
from test_embedding_cache import DIM, FakeEncoder, _clear_memo, _reference, _shards, _texts


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch):
    """As test_embedding_cache's: the encoders' memo empty, no cache block open."""
    monkeypatch.setattr(encoders, "_MEMO", {})
    monkeypatch.setattr(_embedding_cache, "_ACTIVE_CACHE", [None])


def _keys_of(vectors_file):
    return vectors_file.with_name(vectors_file.name.replace(".vectors.", ".keys."))


def _body(path):
    data = path.read_bytes()
    return data[-(30 * DIM * 4):] if path.name.endswith(".vectors.npy") else data[-(30 * 16):]


def _huge_rows(vectors_file):
    vectors_file.write_bytes(npy((10 ** 12, DIM), _body(vectors_file), "<f4"))


def _huge_keys(vectors_file):
    keys = _keys_of(vectors_file)
    keys.write_bytes(npy((10 ** 12, 16), _body(keys), "|u1"))


def _int32_same_bytes(vectors_file):
    vectors_file.write_bytes(npy((30, DIM), _body(vectors_file), "<i4"))


def _big_endian_same_bytes(vectors_file):
    vectors_file.write_bytes(npy((30, DIM), _body(vectors_file), ">f4"))


def _keys_as_int8(vectors_file):
    keys = _keys_of(vectors_file)
    keys.write_bytes(npy((30, 16), _body(keys), "|i1"))


def _bytes_after_the_data(vectors_file):
    vectors_file.write_bytes(vectors_file.read_bytes() + b"\0" * 64)


def _object_keys(vectors_file):
    _keys_of(vectors_file).write_bytes(object_npy())


def _pipe(vectors_file):
    vectors_file.unlink()
    os.mkfifo(vectors_file)


def _pipe_keys(vectors_file):
    keys = _keys_of(vectors_file)
    keys.unlink()
    os.mkfifo(keys)


FORGED = [_huge_rows, _huge_keys, _int32_same_bytes, _big_endian_same_bytes, _keys_as_int8, _bytes_after_the_data,
          _object_keys, _pipe, _pipe_keys]


class _Stalled(BaseException):  # not an Exception: the reader must not take it for damage
    pass


def _stalled(signum, frame):
    raise _Stalled("the cache read stalled (a named pipe opened for reading waits for a writer)")


@pytest.mark.skipif(not hasattr(signal, "SIGALRM") or not hasattr(os, "mkfifo"), reason="POSIX only")
@pytest.mark.parametrize("damage", FORGED, ids=[d.__name__.strip("_") for d in FORGED])
def test_a_forged_shard_is_ignored_with_one_warning(tmp_path, damage):
    texts = _texts(30)
    with embedding_cache(tmp_path / "cache"):
        FakeEncoder().fit().transform(texts)
    (shard,) = _shards(tmp_path / "cache")
    damage(shard)
    _clear_memo()
    encoder = FakeEncoder().fit()
    before = encoded_text_count()
    previous = signal.signal(signal.SIGALRM, _stalled)
    signal.alarm(10)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with embedding_cache(tmp_path / "cache"):
                E = encoder.transform(texts)
                E2 = encoder.transform(texts + ["one more"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    said = [str(w.message) for w in caught]
    assert len(said) == 1, said
    assert said[0].startswith("embedding cache: ignored the damaged file") and "\n" not in said[0]
    assert encoded_text_count() - before == 31
    assert np.allclose(E, _reference(texts), atol=1e-6) and np.allclose(E2[:30], E, atol=1e-6)


def _key_pipe(key_file):
    key_file.unlink()
    os.mkfifo(key_file)


def _key_deep(key_file):
    key_file.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")


def _key_huge(key_file):
    with open(key_file, "wb") as fh:
        fh.write(b'{"k": "' + b"x" * (64 << 20) + b'"}')


KEY_DAMAGE = [_key_pipe, _key_deep, _key_huge]


@pytest.mark.skipif(not hasattr(signal, "SIGALRM") or not hasattr(os, "mkfifo"), reason="POSIX only")
@pytest.mark.parametrize("damage", KEY_DAMAGE, ids=[d.__name__.strip("_") for d in KEY_DAMAGE])
def test_a_forged_key_file_neither_stalls_nor_fails(tmp_path, damage):
    """key.json (the identity of the folder's encoder) was read whole with read_text and parsed
    with json.loads: a named pipe there stalled the encode, 200,000 nested brackets raised
    RecursionError out of transform, and a file of 64 MB was read whole. Now at most one
    warning and the right vectors."""
    texts = _texts(30)
    with embedding_cache(tmp_path / "cache"):
        FakeEncoder().fit().transform(texts)
    (key_file,) = (tmp_path / "cache").glob("*/key.json")
    damage(key_file)
    _clear_memo()
    previous = signal.signal(signal.SIGALRM, _stalled)
    signal.alarm(10)
    tracemalloc.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with embedding_cache(tmp_path / "cache"):
                E = FakeEncoder().fit().transform(texts)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert peak < 16 << 20, peak          # the 64 MB file is not read whole
    said = [str(w.message) for w in caught]
    assert len(said) <= 1 and all(s.startswith("embedding cache:") and "\n" not in s for s in said), said
    assert np.allclose(E, _reference(texts), atol=1e-6)
