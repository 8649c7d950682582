"""Hostile input (issue 12): overflow, undecodable text, special files, tampered model files
and out-of-range indices each fail with a clear error that names the problem."""
from __future__ import annotations

import json
import os
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim import persistence
from learnsim.persistence import ModelFormatError, load, save


# ------------------------------------------------------------------------ overflow in MCD
def _clusters_with_one_huge_entry(n_features=10, n_items=30):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_items, n_features))
    X[0, 0] = 1e300            # finite, but its square is not
    return X, np.arange(n_items) % 3


@pytest.mark.parametrize("params, n_features", [
    (dict(n_basis=8, shrinkage=0.1, complement_weight=1.0), 10),     # principal basis
    (dict(n_basis=None, shrinkage=0.1, complement_weight=1.0), 10),  # covariance
    (dict(n_basis=None, shrinkage=0.0, complement_weight=0.0), 10),  # covariance, paper
    (dict(n_basis=None, shrinkage=0.1, complement_weight=1.0), 300),  # gram
])
def test_mcd_scatter_overflow_is_reported_as_overflow(params, n_features):
    from learnsim.mcd import MinimumClusterDistortion
    X, y = _clusters_with_one_huge_entry(n_features)
    with pytest.raises(ValueError, match=r"within-cluster scatter.*overflowed.*rescale"):
        MinimumClusterDistortion(**params).fit(X, y)


# ------------------------------------------------------------------------ undecodable text
SURROGATE = b"caf\xe9".decode("utf-8", "surrogateescape")   # 'caf\udce9'


def test_vectorizer_vocabulary_with_lone_surrogate_round_trips(tmp_path):
    from learnsim.text import TextVectorizer
    docs = [f"{SURROGATE} au lait", "the cafe is open", f"open {SURROGATE} now"]
    vec = TextVectorizer(token_pattern=r"\S+").fit(docs)
    assert SURROGATE in vec.vocabulary_
    loaded = load(save(vec, tmp_path / "v.npz"))
    assert loaded.vocabulary_ == vec.vocabulary_
    assert (loaded.transform(docs) != vec.transform(docs)).nnz == 0


def test_vectorizer_stop_words_with_lone_surrogate_round_trip(tmp_path):
    from learnsim.text import TextVectorizer
    docs = [f"{SURROGATE} au lait", "the cafe is open", f"open {SURROGATE} now"]
    vec = TextVectorizer(token_pattern=r"\S+", stop_words=[SURROGATE, "the"]).fit(docs)
    assert SURROGATE not in vec.vocabulary_
    loaded = load(save(vec, tmp_path / "v.npz"))
    assert set(loaded.stop_words) == {SURROGATE, "the"}
    assert (loaded.transform(docs) != vec.transform(docs)).nnz == 0


# ------------------------------------------------------------------------ special files
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_load_refuses_a_device_instead_of_reading_it_forever():
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load("/dev/zero")
    with pytest.raises(ModelFormatError, match="not a regular file"):
        persistence.read_manifest("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_load_refuses_a_named_pipe_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    with pytest.raises(ModelFormatError, match="not a regular file"):
        load(fifo)


def _small_saved_model(tmp_path):
    from learnsim.persistence import _ExampleState
    path = tmp_path / "m.npz"
    save(_ExampleState({}, {"w": np.arange(4.0)}), path)
    return path


def _npy_bytes(arr):
    import io
    buffer = io.BytesIO()
    np.save(buffer, arr)
    return buffer.getvalue()


def _repack_with(path, out, member, payload):
    """``path`` copied to ``out`` with ``member`` replaced by ``payload``, deflated."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, payload if info.filename == member else src.read(info))


@pytest.mark.parametrize("payload, message", [
    # the .npy header itself claims 100 MB: refused on the header, before any allocation
    (lambda: _npy_bytes(np.zeros(12_500_000)), r"array 'w'.*shape \[12500000\].*manifest says \[4\]"),
    # the header agrees with the manifest, but 100 MB of zeros follow it (a zip bomb)
    (lambda: _npy_bytes(np.arange(4.0)) + bytes(100_000_000), r"'model/w' is 100000\d\d\d bytes.*refused unread"),
])
def test_entry_larger_than_the_manifest_declares_is_refused_before_it_is_read(tmp_path, payload, message):
    path = _small_saved_model(tmp_path)
    bomb = tmp_path / "bomb.npz"
    _repack_with(path, bomb, "model/w.npy", payload())
    assert bomb.stat().st_size < 2 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFormatError, match=message):
            load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"load read {peak / 2**20:.0f} MiB of an entry it should have refused unread"


def test_manifest_larger_than_the_limit_is_refused_unread(tmp_path, monkeypatch):
    path = _small_saved_model(tmp_path)
    monkeypatch.setattr(persistence, "MAX_MANIFEST_BYTES", 64)
    with pytest.raises(ModelFormatError, match="manifest.*larger than"):
        load(path)


# ------------------------------------------------------------------------ indices
def test_out_of_range_pair_triplet_and_link_indices_are_value_errors():
    from learnsim.supervision import Links, Pairs, check_pairs, check_triplets
    with pytest.raises(ValueError, match="index 7, out of range for 5 items") as info:
        check_triplets([[0, 1, 7]], 5)
    assert not isinstance(info.value, IndexError)
    with pytest.raises(ValueError, match="index 9, out of range for 5 items"):
        check_pairs(Pairs([[0, 9]], labels=[1]), 5)
    with pytest.raises(ValueError, match="index 12, out of range for 10 items"):
        Links.from_edges([[0, 12]], n_items=10)


def test_huge_unsigned_index_is_reported_as_itself():
    from learnsim.supervision import Pairs, check_triplets
    big = np.array([[0, 1, 2**64 - 1]], dtype=np.uint64)
    with pytest.raises(ValueError, match="18446744073709551615") as info:
        check_triplets(big, 5)
    assert "-1" not in str(info.value)
    with pytest.raises(ValueError, match="18446744073709551615"):
        Pairs(big[:, 1:], labels=[1])


def test_metric_pair_index_out_of_range_is_a_value_error():
    from learnsim.mcd import MinimumClusterDistortion
    X, y = _clusters_with_one_huge_entry()
    X[0, 0] = 0.0
    m = MinimumClusterDistortion(n_basis=None, shrinkage=0.1, complement_weight=1.0).fit(X, y)
    with pytest.raises(ValueError, match="index 1000, out of range"):
        m.pair_distance([[0, 1000]], X=X)


def test_film_with_no_triplets_says_so():
    from learnsim.film import FILM
    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match="no triplets"):
        FILM().fit(X, [])
