"""A saved ANN directory whose ids.npy is hostile (a header claiming 10^12 rows, a shape whose
int64 product wraps, a truncated file, objects, a pickle) with its checksum recomputed is refused
naming the file and the problem, before numpy allocates what the header claims or unpickles."""
from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from learnsim.ann import ANNFormatError, load_ann, make_ann
from hostile_npy import npy, object_npy

pytest.importorskip("faiss")


HOSTILE = {
    "header claims 10^12 rows": (npy((10 ** 12,), b"\0" * 80), "header announces 8000000000128"),
    "shape product wraps in int64": (npy((2 ** 32, 2 ** 32, 1)), "header announces"),
    "truncated": (npy((200,), b"\0" * 100), "is 228 bytes"),
    "object dtype": (object_npy(), "object array"),
    "a pickle": (pickle.dumps(list(range(200))), "not a .npy array file"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_ids_file_is_refused_naming_it(kind, tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    make_ann("faiss-flat", metric="sqeuclidean").fit(rng.normal(size=(200, 8))).save(tmp_path / "saved")
    raw, message = HOSTILE[kind]
    ids = tmp_path / "saved" / "ids.npy"
    ids.write_bytes(raw)
    meta = json.loads((tmp_path / "saved" / "meta.json").read_text())
    meta["files"]["ids.npy"] = hashlib.sha256(raw).hexdigest()
    (tmp_path / "saved" / "meta.json").write_text(json.dumps(meta))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("a pickle was loaded"))
    with pytest.raises(ANNFormatError, match=message) as info:
        load_ann(tmp_path / "saved")
    assert str(Path(ids)) in str(info.value)


def test_a_saved_index_still_loads(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    ann = make_ann("faiss-flat", metric="sqeuclidean").fit(X)
    ann.save(tmp_path / "saved")
    assert np.array_equal(load_ann(tmp_path / "saved").search(X[:5], 3)[0], ann.search(X[:5], 3)[0])


def _forge_faiss_codes(directory, claim):
    """Make the flat index's vector storage claim ``claim`` floats, its checksum recomputed."""
    import struct

    meta = json.loads((directory / "meta.json").read_text())
    native = directory / meta["native_file"]
    raw = bytearray(native.read_bytes())
    at = raw.find(struct.pack("<Q", 200 * 8))       # the size field of the 200 x 8 floats
    assert at > 0
    raw[at:at + 8] = struct.pack("<Q", claim)
    native.write_bytes(raw)
    meta["files"][native.name] = hashlib.sha256(raw).hexdigest()
    (directory / "meta.json").write_text(json.dumps(meta))
    return native


@pytest.mark.parametrize("mmap", [False, True])
def test_a_native_faiss_file_cannot_make_faiss_allocate_beyond_its_size(tmp_path, monkeypatch, mmap):
    # an 8 KB index.faiss whose vector claimed 5 * 10^8 floats made faiss allocate (and zero)
    # 2 GB before its read failed; faiss's own bound was 1 TiB
    import faiss

    rng = np.random.default_rng(0)
    make_ann("faiss-flat", metric="sqeuclidean").fit(rng.normal(size=(200, 8))).save(tmp_path / "saved")
    native = _forge_faiss_codes(tmp_path / "saved", 500_000_000)
    before = faiss.get_deserialization_vector_byte_limit()
    seen = []
    real = faiss.read_index

    def read_index(*args):
        seen.append(faiss.get_deserialization_vector_byte_limit())
        return real(*args)

    monkeypatch.setattr(faiss, "read_index", read_index)
    with pytest.raises(ANNFormatError, match="could not read the native index") as info:
        load_ann(tmp_path / "saved", mmap=mmap)
    assert str(native) in str(info.value)
    assert seen and 0 < seen[0] <= native.stat().st_size
    assert faiss.get_deserialization_vector_byte_limit() == before
